"""meshbench workload and plan --workload on the file formats users have: the published
Mixtral-8x7B config.json (figures worked out by hand in tests/unit/mapping/workload_files_test.cpp),
a Megatron-LM launch script whose layout fills the options not given, a YAML overlay.
Usage: mapping_workload_check.py MESHBENCH DATA"""
import json
import os
import subprocess
import sys
import tempfile

meshbench, data = sys.argv[1], sys.argv[2]
mixtral = f"{data}/model-configs/mixtral-8x7b-v0.1/config.json"
script = f"{data}/megatron/train_mixtral_8x7b.sh"
scratch = tempfile.TemporaryDirectory(prefix="mb-workload-check-")  # removed at exit
work = scratch.name
problems = []


def run(*args):
    p = subprocess.run([meshbench, *args], capture_output=True, text=True, timeout=100)
    if p.returncode != 0:
        sys.exit(f"{args} exited {p.returncode}: {p.stderr}")
    return p.stdout


def traffic(doc):
    return {(t["dim"], t["op"]): (t["bytes"], t["calls_per_step"]) for t in doc["traffic"]}


# The config at TP2 PP2 EP8 ETP1 on 32 GPUs with the default training settings.
doc = json.loads(run("workload", mixtral, "--tp", "2", "--pp", "2", "--ep", "8", "--etp", "1", "--gpus", "32", "--format", "json"))
want = {("tp", "all_gather"): (33554432, 256), ("tp", "reduce_scatter"): (33554432, 256), ("pp", "send_recv"): (16777216, 16),
        ("ep", "all_to_all"): (33554432, 512), ("dp", "all_reduce"): (1605369856, 1), ("edp", "all_reduce"): (11274289152, 1)}
if traffic(doc) != want:
    problems.append(f"mixtral traffic {traffic(doc)}, want {want}")
total = doc["parameters"]["total"] / 1e9
if abs(total - 46.7) > 0.02 * 46.7:
    problems.append(f"mixtral total {total} B, card 46.7 B")
if "rope_theta" not in doc["ignored"]:
    problems.append(f"rope_theta not listed as ignored: {doc['ignored']}")

# Options override the training settings: 4 micro-batches instead of 8 halve the per-micro-batch calls.
doc = json.loads(run("workload", mixtral, "--tp", "2", "--pp", "2", "--ep", "8", "--etp", "1", "--gpus", "32",
                     "--micro-batches", "4", "--format", "json"))
if traffic(doc)[("ep", "all_to_all")] != (33554432, 256):
    problems.append(f"--micro-batches 4: ep {traffic(doc)[('ep', 'all_to_all')]}")

# The launch script: layout TP2 PP2 EP8 (ETP = TP, Megatron's default) on torchrun's 8 x 4 GPUs.
doc = json.loads(run("workload", script, "--format", "json"))
layout = {k: doc["layout"][k] for k in ("world", "tp", "pp", "ep", "etp", "dp")}
if layout != {"world": 32, "tp": 2, "pp": 2, "ep": 8, "etp": 2, "dp": 8}:
    problems.append(f"script layout {layout}")
if doc["micro_batches_per_step"] != 32:
    problems.append(f"global batch 256 over DP 8 gives {doc['micro_batches_per_step']} micro-batches, want 32")
text = run("workload", script)
for words in ("Megatron-LM arguments", "ignored (they do not change the traffic): ", "--lr", "EP 8"):
    if words not in text:
        problems.append(f"text output lacks {words!r}")

# plan --workload: the script's layout fills what the command line leaves out; typed options win.
plan = json.loads(run("plan", "--node-type", "p5.48xlarge", "--nodes", "4", "--workload", script, "--format", "json", "--top", "1"))
if (plan["layout"]["tp"], plan["layout"]["pp"], plan["layout"]["ep"]) != (2, 2, 8) or plan["time_basis"] != "per_step":
    problems.append(f"plan with the script: layout {plan['layout']}, basis {plan['time_basis']}")
plan = json.loads(run("plan", "--node-type", "p5.48xlarge", "--nodes", "4", "--workload", script, "--tp", "4", "--etp", "1", "--format", "json", "--top", "1"))
if plan["layout"]["tp"] != 4 or plan["layout"]["ep"] != 8:
    problems.append(f"--tp 4 over the script: layout {plan['layout']}")

# A YAML overlay over the config, planned.
overlay = os.path.join(work, "train.yaml")
with open(overlay, "w") as f:
    f.write(f"model: {mixtral}\nseq_len: 8192\nglobal_batch: 64\ndistributed_optimizer: true\n")
plan = json.loads(run("plan", "--node-type", "p5.48xlarge", "--nodes", "4", "--tp", "8", "--ep", "8", "--etp", "1", "--workload", overlay,
                      "--format", "json", "--top", "1"))
w = plan["workload"]
if (w["seq_len"], w["global_batch"], w["distributed_optimizer"], w["hidden"]) != (8192, 64, True, 4096):
    problems.append(f"overlay workload {w}")

if problems:
    sys.exit("\n".join(problems))
print("workload formats: ok")
