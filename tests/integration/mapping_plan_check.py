"""meshbench plan for 4 p5.48xlarge nodes, TP8 ETP1 EP8 PP4: TP never crosses a node in the top
candidate and the output says so; the JSON form agrees; --out writes a plan that refuses to be
overwritten without --force; --export writes one line per rank. The topology comes from the node
type alone or from AWS's p5 NCCL file plus the node type.
Usage: mapping_plan_check.py MESHBENCH DATA node_type|nccl_file"""
import json
import os
import subprocess
import sys
import tempfile

meshbench, data, source = sys.argv[1], sys.argv[2], sys.argv[3]
topology = ["--node-type", "p5.48xlarge", "--nodes", "4"]
if source == "nccl_file":
    topology += ["--topology", f"{data}/nccl-topo/p5.48xl-topo.xml"]
layout = ["--tp", "8", "--etp", "1", "--ep", "8", "--pp", "4"]
problems = []


def run(*args, expect=0):
    p = subprocess.run([meshbench, "plan", *topology, *layout, *args], capture_output=True, text=True, timeout=100)
    if p.returncode != expect:
        sys.exit(f"plan {args} exited {p.returncode}, want {expect}: {p.stderr}")
    return p


text = run().stdout
if "TP stays inside one node in the best mapping." not in text:
    problems.append(f"text does not say TP stays inside a node:\n{text}")
rows = [l for l in text.splitlines() if l.startswith("1 ")]
header = next((l for l in text.splitlines() if l.startswith("rank")), "")
first = rows[0] if rows else ""
inside_at = header.find("inside a node")
across_at = header.find("across")
if not first or "tp" not in first[inside_at:across_at].split():
    problems.append(f"first row does not list tp inside a node:\n{header}\n{first}")
if "why: " not in text or "keeps tp" not in text:
    problems.append(f"no sentence on why the best wins:\n{text}")

doc = json.loads(run("--format", "json").stdout)
best = doc["mappings"][0]
if best["predicted"]["tp"]["crosses_nodes"]:
    problems.append(f"JSON: best mapping {best['name']} sends tp across nodes")
if best["predicted"]["tp"]["nodes_per_group"] != 1:
    problems.append(f"JSON: tp groups span {best['predicted']['tp']['nodes_per_group']} nodes")
if "slot_of_rank" in best:
    problems.append("JSON on stdout carries slot_of_rank (only the --out file should)")

scratch = tempfile.TemporaryDirectory(prefix="mb-plan-check-")  # removed at exit
work = scratch.name
out = os.path.join(work, "plan.json")
run("--out", out)
plan = json.load(open(out))
if plan["format"] != "meshbench-plan" or plan["layout"]["world"] != 32:
    problems.append(f"plan file header: {plan['format']} world {plan['layout']['world']}")
if sorted(plan["mappings"][0]["slot_of_rank"]) != list(range(32)):
    problems.append("plan file: slot_of_rank of the best mapping is not a permutation of 0..31")
again = run("--out", out, expect=2)
if "--force" not in again.stderr:
    problems.append(f"overwriting without --force: {again.stderr!r}")
run("--out", out, "--force")

exports = os.path.join(work, "exports")
run("--export", exports)
for name, lines in [("rankfile", 32), ("slurm_hostfile", 32), ("cuda_visible_devices.txt", 4)]:
    got = open(os.path.join(exports, name)).read().splitlines()
    if len(got) != lines:
        problems.append(f"{name}: {len(got)} lines, want {lines}")
hosts = open(os.path.join(exports, "slurm_hostfile")).read().split()
if hosts[:8] != [hosts[0]] * 8 or len(set(hosts)) != 4:
    problems.append(f"slurm_hostfile does not place 8 ranks on each of 4 hosts: {hosts}")
args = open(os.path.join(exports, "megatron_args.txt")).read()
if "--tensor-model-parallel-size 8" not in args or "--expert-tensor-parallel-size 1" not in args:
    problems.append(f"megatron_args.txt: {args}")

if problems:
    sys.exit("\n".join(problems))
print(f"plan p5 x 4 ({source}): best {best['name']} keeps TP inside a node")
