"""meshbench explore on Qwen3-30B-A3B (128 experts), 8 x p5.48xlarge, EP 8 against EP 16 with
routing skew 0.5: the JSON lists the fitting layouts in rank order with integer sizes and the
memory and time terms, EP 16 is slower and hotter than EP 8, and the text names the best of each
EP size. Usage: mapping_explore_check.py MESHBENCH TEST_DATA"""
import json
import subprocess
import sys

meshbench, data = sys.argv[1], sys.argv[2]
args = ["explore", "--workload", f"{data}/model-configs/qwen3-30b-a3b/config.json", "--node-type", "p5.48xlarge", "--nodes", "8",
        "--ep", "8,16", "--a2av-skew", "0.5"]
problems = []
p = subprocess.run([meshbench, *args, "--format", "json"], capture_output=True, text=True, timeout=50)
if p.returncode != 0:
    sys.exit(f"explore exited {p.returncode}: {p.stderr}")
j = json.loads(p.stdout)
layouts = j["layouts"]
fitting = [e for e in layouts if e["fits"]]
if not fitting or any(not e["fits"] for e in layouts[:len(fitting)]):
    problems.append("the fitting layouts do not come first")
if [e["rank"] for e in fitting] != list(range(1, len(fitting) + 1)):
    problems.append("ranks are not 1..n in order")
steps = [e["time_ms"]["step"] for e in fitting]
if steps != sorted(steps):
    problems.append("fitting layouts are not in step-time order")
for e in layouts:
    for key in ("tp", "cp", "pp", "vpp", "ep", "etp", "dp", "edp"):
        if not isinstance(e[key], int):
            problems.append(f"{key} is not an integer: {e[key]!r}")
    if not isinstance(e["fits"], bool):
        problems.append("fits is not a boolean")
    if e["ep"] not in (8, 16):
        problems.append(f"--ep 8,16 not honoured: EP {e['ep']}")
    m = e["memory"]["maximum"]
    total = m["weights_gib"] + m["gradients_gib"] + m["optimizer_gib"] + m["activations_gib"] + m["allowance_gib"]
    if abs(total - m["total_gib"]) > 1e-6 * total:
        problems.append("memory terms do not add up to the total")
    if e["fits"] and m["total_gib"] > j["gpu"]["memory_gib"]:
        problems.append("a layout that fits needs more than the GPU has")
best = {ep: fitting[rank - 1] for ep, rank in ((int(k), v) for k, v in j["best_rank_by_ep"].items())}
if set(best) != {8, 16}:
    problems.append(f"best_rank_by_ep has {sorted(best)}")
else:
    if not best[8]["time_ms"]["step"] < best[16]["time_ms"]["step"]:
        problems.append("EP 16 (two nodes, hotter busiest rank) is not slower than EP 8")
    if not best[16]["routing_imbalance"] > best[8]["routing_imbalance"] > 1:
        problems.append("the routing imbalance does not grow with EP")
t = subprocess.run([meshbench, *args], capture_output=True, text=True, timeout=50)
for words in ("best of each EP size", "EP8: rank 1", "EP16: rank", "megatron: --tensor-model-parallel-size"):
    if words not in t.stdout:
        problems.append(f"text lacks {words!r}")
if problems:
    sys.exit("\n".join(problems))
print(f"{len(fitting)} layouts fit of {len(layouts)} valid; EP8 {best[8]['time_ms']['step']:.0f} ms, EP16 {best[16]['time_ms']['step']:.0f} ms")
