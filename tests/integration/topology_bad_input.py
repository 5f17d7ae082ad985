"""Bad input to meshbench topo (and to doctor, which shares topo's launcher check): exit status
2, one line on stderr that names the problem, nothing on stdout.
Usage: topology_bad_input.py MESHBENCH DATA CASE"""
import os
import subprocess
import sys
import tempfile

meshbench, data, case = sys.argv[1], sys.argv[2], sys.argv[3]

scratch = tempfile.TemporaryDirectory(prefix="mb-topo-bad-")  # removed at exit
malformed = os.path.join(scratch.name, "broken.xml")
with open(malformed, "w") as f:
    f.write('<system version="1">\n  <cpu numaid="0">\n    <pci busid="0000:10:00.0">\n</system>\n')

# An srun step of several tasks without an MPI plugin: no PMIX_RANK or PMI_RANK to join by.
srun_without_plugin = {"SLURM_STEP_ID": "0", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "4"}

# case: (arguments of topo, words the message must contain[, subcommand and environment])
cases = {
    "missing_file": (["--topology", "/nonexistent/p4d.xml"], ["/nonexistent/p4d.xml", "--topology"]),
    "malformed_xml": (["--topology", malformed], ["malformed XML", "broken.xml", "line"]),
    "no_gpus": (["--topology", f"{data}/nccl-topo/p5.48xl-topo.xml"], ["no GPUs", "--node-type p5.48xlarge"]),
    "nodes_zero": (["--node-type", "p5.48xlarge", "--nodes", "0"], ["--nodes", "at least 1"]),
    "unknown_node_type": (["--node-type", "p9.mega"], ["p9.mega", "p5.48xlarge"]),
    "unknown_format": (["--node-type", "p5.48xlarge", "--format", "yaml"], ["yaml", "--format"]),
    "srun_without_mpi_plugin": ([], ["4 tasks", "srun --mpi=pmix"], "topo", srun_without_plugin),
    "doctor_srun_without_mpi_plugin": ([], ["4 tasks", "srun --mpi=pmix"], "doctor", srun_without_plugin),
}
args, words, command, extra_env = (cases[case] + ("topo", {}))[:4]
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_COMM_WORLD", "PMIX_", "PMI_"))}
env.update(extra_env)
p = subprocess.run([meshbench, command, *args], capture_output=True, text=True, timeout=50, env=env)
lines = p.stderr.splitlines()
problems = []
if p.returncode != 2:
    problems.append(f"exit status {p.returncode}, want 2")
if p.stdout:
    problems.append(f"stdout not empty: {p.stdout[:200]!r}")
if len(lines) != 1:
    problems.append(f"{len(lines)} stderr lines, want 1: {p.stderr!r}")
problems += [f"message lacks {w!r}: {p.stderr!r}" for w in words if w not in p.stderr]
if problems:
    sys.exit("\n".join(problems))
print(lines[0])
