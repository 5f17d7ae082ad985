"""meshbench explore --measured end to end: a published run (Megatron-Bridge 26.02, gpt-oss-120b
on 64 H100, TP1 PP4 EP8, global batch 1280, 13.669 s per step: tests/data/published) written as a
Megatron-LM log; explore fits its efficiency to that step, says so, and ranks with it. The same
log with --measured-layout agreeing is accepted. Usage: mapping_explore_measured.py MESHBENCH TEST_DATA"""
import json
import os
import subprocess
import sys
import tempfile

meshbench, data = sys.argv[1], sys.argv[2]
STEP_MS = 13669.0
ARGUMENTS = {"tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 4, "virtual_pipeline_model_parallel_size": "None",
             "context_parallel_size": 1, "expert_model_parallel_size": 8, "expert_tensor_parallel_size": 1, "world_size": 64,
             "micro_batch_size": 1, "global_batch_size": 1280, "seq_length": 4096, "num_layers": 36, "bf16": "True",
             "fp8": "None", "recompute_granularity": "selective", "use_distributed_optimizer": "True"}
problems = []
with tempfile.TemporaryDirectory() as d:
    log = os.path.join(d, "gpt-oss.log")
    with open(log, "w") as f:
        f.write("------------------------ arguments ------------------------\n")
        for k, v in ARGUMENTS.items():
            f.write(f"  {k} {'.' * (48 - len(k))} {v}\n")
        f.write("-------------------- end of arguments ---------------------\n")
        for i, ms in ((1, 3 * STEP_MS), (2, STEP_MS), (3, STEP_MS)):
            f.write(f" [2026-02-01 00:00:0{i}] iteration {i:8d}/      50 | consumed samples: {1280 * i:12d} | elapsed time per "
                    f"iteration (ms): {ms:.1f} | global batch size:  1280 | loss scale: 1.0 | number of skipped iterations:   0 |\n")
    args = ["explore", "--workload", f"{data}/model-configs/gpt-oss-120b/config.json", "--node-type", "p5.48xlarge", "--nodes", "8",
            "--global-batch", "1280", "--plan-top", "0", "--measured", log]
    p = subprocess.run([meshbench, *args, "--format", "json"], capture_output=True, text=True, timeout=50)
    if p.returncode != 0:
        sys.exit(f"explore --measured exited {p.returncode}: {p.stderr}")
    j = json.loads(p.stdout)
    m = j["measured"]
    if abs(m["step_ms"] - STEP_MS) > 1e-6:
        problems.append(f"measured step {m['step_ms']} ms, the log says {STEP_MS}")
    if abs(m["estimate_after_ms"] - STEP_MS) > 1e-4 * STEP_MS:
        problems.append(f"the fitted estimate {m['estimate_after_ms']} ms does not meet the measured {STEP_MS} ms")
    if not m["efficiency_after"] < m["efficiency_before"] == 0.5:
        problems.append(f"efficiency {m['efficiency_before']} -> {m['efficiency_after']}: the default is optimistic for this run")
    if j["settings"]["efficiency"] != m["efficiency_after"]:
        problems.append("the ranking does not use the fitted efficiency")
    pinned = [e for e in j["layouts"] if (e["tp"], e["pp"], e["ep"], e["vpp"], e["etp"], e["cp"]) == (1, 4, 8, 1, 1, 1)]
    if not pinned or abs(pinned[0]["time_ms"]["step"] - STEP_MS) > 1e-3 * STEP_MS:
        problems.append(f"the measured layout is not ranked at its measured step: {pinned[:1]}")
    t = subprocess.run([meshbench, *args, "--measured-layout", "tp=1,pp=4,ep=8"], capture_output=True, text=True, timeout=50)
    for words in ("measured: ", "ms per step", "fitted: compute efficiency 0.500 -> ", "communication hidden 0.000 -> 0.000 (unchanged)"):
        if words not in t.stdout:
            problems.append(f"text lacks {words!r}: {t.stdout[:400]!r} {t.stderr!r}")
if problems:
    sys.exit("\n".join(problems))
print(f"fitted efficiency {m['efficiency_after']:.3f}; estimate {m['estimate_before_ms']:.0f} -> {m['estimate_after_ms']:.0f} ms")
