"""Bad input to meshbench groups, plan, workload and explore: exit status 2, one line on stderr
that names the problem, nothing on stdout. Usage: mapping_bad_input.py MESHBENCH CASE"""
import json
import os
import subprocess
import sys
import tempfile

meshbench, case = sys.argv[1], sys.argv[2]
# Removed when the interpreter exits, whatever the case's outcome: one folder per case and run
# would otherwise pile up under the temporary folder.
scratch = tempfile.TemporaryDirectory(prefix="mb-mapping-bad-")
work = scratch.name


def file(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


p5 = ["--node-type", "p5.48xlarge", "--nodes", "2"]
# case: (arguments, words the message must contain)
# A Megatron-LM log's arguments block and one iteration line, as Megatron prints them.
MEGATRON_ARGUMENTS = ("------------------------ arguments ------------------------\n"
                      "  tensor_model_parallel_size ...................... 1\n"
                      "  pipeline_model_parallel_size .................... 1\n"
                      "  expert_model_parallel_size ...................... 8\n"
                      "  world_size ...................................... 16\n"
                      "-------------------- end of arguments ---------------------\n")
MEGATRON_ITERATION = (" [2025-01-01 00:00:00] iteration       10/     100 | consumed samples:        10240 | "
                      "elapsed time per iteration (ms): 12000.0 | number of skipped iterations:   0 |\n")
cases = {
    "groups_no_world": (["groups", "--tp", "2"], ["--world"]),
    "groups_not_divisible": (["groups", "--world", "12", "--tp", "8"], ["not divisible by TP*CP*PP"]),
    "groups_pp_last": (["groups", "--world", "16", "--tp", "2", "--pp", "2", "--ep", "2", "--order", "tp-cp-ep-pp-dp"],
                       ["does not end in pp", "EDP"]),
    "groups_unknown_dim": (["groups", "--world", "8", "--order", "tp-xp"], ["unknown dimension 'xp'"]),
    "groups_bad_format": (["groups", "--world", "8", "--format", "yaml"], ["yaml", "--format"]),
    "groups_zero_tp": (["groups", "--world", "8", "--tp", "0"], ["--tp", "at least 1"]),
    "plan_unknown_node_type": (["plan", "--node-type", "p9.mega"], ["p9.mega"]),
    "plan_nodes_zero": (["plan", "--node-type", "p5.48xlarge", "--nodes", "0"], ["--nodes", "at least 1"]),
    "plan_layout_not_dividing": (["plan", *p5, "--tp", "3"], ["not divisible by TP*CP*PP"]),
    "plan_workload_missing": (["plan", *p5, "--workload", "/nonexistent/w.json"], ["/nonexistent/w.json"]),
    "plan_workload_malformed": (["plan", *p5, "--workload", file("bad.json", '{"layers": ')], ["not valid JSON"]),
    "plan_workload_unknown_key": (["plan", *p5, "--workload", file("key.json", '{"hiden": 4096}')], ["unknown key 'hiden'"]),
    "plan_workload_experts_vs_ep": (["plan", *p5, "--ep", "16", "--workload", file("e.json", '{"experts": 8}')],
                                    ["experts", "EP 16"]),
    "plan_cost_model_bad_key": (["plan", *p5, "--cost-model", file("c.json", '{"links": {"XYZ": {}}}')], ["XYZ"]),
    "plan_mapping_without_export": (["plan", *p5, "--mapping", "order:tp"], ["--export"]),
    "plan_unknown_mapping": (["plan", *p5, "--tp", "8", "--export", os.path.join(work, "x"), "--mapping", "nope"],
                             ["no mapping named 'nope'"]),
    "plan_top_negative": (["plan", *p5, "--top", "-1"], ["--top"]),
    "plan_out_exists": (["plan", *p5, "--out", file("exists.json", "{}")], ["exists", "--force"]),
    "plan_hosts_count": (["plan", *p5, "--hosts", file("hosts", "a\nb\nc\n")], ["3 hosts for 2 nodes"]),
    "plan_bad_format": (["plan", *p5, "--format", "csv"], ["csv", "--format"]),
    "plan_negative_skew": (["plan", *p5, "--a2av-skew", "-0.5"], ["--a2av-skew must be 0 or more"]),
    "plan_cost_model_old_imbalance": (["plan", *p5, "--cost-model", file("old.json", '{"alltoallv_imbalance": 1.25}')],
                                      ["'alltoallv_imbalance'", "replaced by 'a2av_skew'"]),
    "plan_workload_unknown_model_type": (["plan", *p5, "--workload", file("falcon.json", '{"model_type": "falcon", "hidden_size": 4096}')],
                                         ["model type 'falcon'", "llama, mistral, qwen2, qwen3 (dense); mixtral"]),
    "workload_no_file": (["workload"], ["name the workload file"]),
    "workload_unknown_model_type": (["workload", file("config.json", '{"architectures": ["FalconForCausalLM"], "hidden_size": 4096}')],
                                    ["model type 'FalconForCausalLM'", "supported"]),
    "workload_missing_key": (["workload", file("mixtral.json", json.dumps({
        "model_type": "mixtral", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
        "vocab_size": 32000, "num_experts_per_tok": 2, "intermediate_size": 14336}))], ["lacks 'num_local_experts'"]),
    "workload_megatron_not_modelled": (["workload", file("train.sh", "#!/bin/bash\ntorchrun pretrain_gpt.py \\\n"
                                        "  --num-layers 4 --hidden-size 1024 --num-attention-heads 8 \\\n"
                                        "  --seq-length 2048 --micro-batch-size 1 --num-layers-per-virtual-pipeline-stage 2\n")],
                                       ["line 2", "--num-layers-per-virtual-pipeline-stage", "remove it"]),
    "workload_megatron_unknown_moe_arg": (["workload", file("moe.args", "--num-layers 4 --hidden-size 1024 --num-attention-heads 8 "
                                           "--seq-length 2048 --micro-batch-size 1 --num-experts 4 --moe-token-dispatcher-type alltoall "
                                           "--moe-expert-count 8\n")], ["--moe-expert-count is not understood"]),
    "workload_malformed_yaml": (["workload", file("bad.yaml", "layers: 4\nhidden: [1, 2\nexperts: 8\n")], ["not valid YAML", "line"]),
    "workload_overlay_model_key": (["workload", file("ov.yaml", "model: " + file("m.json", "{}") + "\nhidden: 1024\n")],
                                   ["'hidden' describes the model"]),
    "workload_global_batch": (["workload", file("gb.json", '{"global_batch": 100}'), "--tp", "2", "--ep", "8", "--gpus", "16"],
                              ["global batch 100", "DP 8"]),
    "explore_no_workload": (["explore", *p5], ["--workload"]),
    "explore_workload_refused": (["explore", *p5, "--workload", file("bad.json", '{"layers": ')], ["not valid JSON"]),
    "explore_ep_vs_experts": (["explore", *p5, "--ep", "16", "--workload", file("e8.json", '{"experts": 8, "heads": 32, "kv_heads": 8}')],
                              ["experts not divisible by EP", "no layout of 16 GPUs"]),
    "explore_size_not_dividing": (["explore", *p5, "--tp", "3", "--workload", file("e3.json", '{"experts": 8}')],
                                  ["--tp 3 does not divide the 16 slots"]),
    "explore_bad_sizes": (["explore", *p5, "--pp", "2-x", "--workload", file("e4.json", '{"experts": 8}')], ["--pp", "not a size list"]),
    "explore_memory_unknown": (["explore", "--cpu-slots", "4", "--workload", file("e5.json", '{"experts": 8}')], ["--gpu-memory"]),
    "explore_efficiency": (["explore", *p5, "--efficiency", "1.5", "--workload", file("e6.json", '{"experts": 8}')], ["--efficiency"]),
    "explore_out_exists": (["explore", *p5, "--workload", file("e7.json", '{"experts": 8}'), "--out", file("exists.json", "{}")],
                           ["exists", "--force"]),
    "explore_out_top_zero": (["explore", *p5, "--workload", file("e8.json", '{"experts": 8}'), "--out", os.path.join(work, "p.json"),
                              "--out-top", "0"], ["--out-top", "got 0"]),
    "explore_measured_not_megatron": (["explore", *p5, "--workload", file("m1.json", '{"experts": 8}'), "--measured",
                                       file("loss.log", "loss 2.3\nloss 2.2\n")], ["is not a Megatron-LM log"]),
    "explore_measured_no_iterations": (["explore", *p5, "--workload", file("m2.json", '{"experts": 8}'), "--measured",
                                        file("args.log", MEGATRON_ARGUMENTS)], ["no iteration line"]),
    "explore_measured_layout_contradicts": (["explore", *p5, "--workload", file("m3.json", '{"experts": 8}'), "--measured",
                                             file("tp1.log", MEGATRON_ARGUMENTS + MEGATRON_ITERATION), "--measured-layout", "tp=2,ep=8"],
                                            ["states TP 1, --measured-layout gives 2"]),
    "explore_measured_layout_malformed": (["explore", *p5, "--workload", file("m4.json", '{"experts": 8}'), "--measured",
                                           file("one.log", MEGATRON_ITERATION), "--measured-layout", "tp:2"], ["--measured-layout 'tp:2'"]),
    "explore_measured_layout_without_log": (["explore", *p5, "--workload", file("m5.json", '{"experts": 8}'), "--measured-layout", "tp=2"],
                                            ["--measured-layout describes a --measured LOG"]),
    "explore_negative_allowance": (["explore", *p5, "--allowance", "-1", "--workload", file("e9.json", '{"experts": 8}')],
                                   ["--allowance", "0 or more"]),
    "explore_negative_skew": (["explore", *p5, "--a2av-skew", "-1", "--workload", file("e10.json", '{"experts": 8}')],
                              ["--a2av-skew must be 0 or more"]),
}
args, words = cases[case]
p = subprocess.run([meshbench, *args], capture_output=True, text=True, timeout=50)
lines = p.stderr.splitlines()
problems = []
if p.returncode != 2:
    problems.append(f"exit status {p.returncode}, want 2")
if p.stdout:
    problems.append(f"stdout not empty: {p.stdout[:200]!r}")
if len(lines) != 1:
    problems.append(f"{len(lines)} stderr lines, want 1: {p.stderr!r}")
problems += [f"message lacks {w!r}: {p.stderr!r}" for w in words if w not in p.stderr]
if case in ("plan_out_exists", "explore_out_exists") and open(os.path.join(work, "exists.json")).read() != "{}":
    problems.append("the existing --out file was changed")
if case == "explore_out_top_zero" and os.path.exists(os.path.join(work, "p.json")):
    problems.append("--out was written although the command was refused")
if problems:
    sys.exit("\n".join(problems))
print(lines[0])
