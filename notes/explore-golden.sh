#!/usr/bin/env bash
# Writes explore's text and JSON output (and its --out plan files) for the model configs and
# recipes in tests/data into DIR, so two builds can be compared byte for byte:
#   notes/explore-golden.sh build/meshbench DIR; diff -r DIR_BEFORE DIR_AFTER
set -euo pipefail
mb="$(realpath "$1")" out="$2"
data="$(cd "$(dirname "$0")/../tests/data" && pwd)"
mkdir -p "$out"
cd "$out"
out=.
n=0
case_() {
  local name="$1"
  shift
  n=$((n + 1))
  "$mb" explore "$@" --top 0 > "$out/$name.txt" 2> "$out/$name.err" || echo "exit $?" >> "$out/$name.err"
  "$mb" explore "$@" --format json > "$out/$name.json" 2>> "$out/$name.err" || echo "exit $?" >> "$out/$name.err"
}
for m in deepseek-v3 gpt-oss-120b mixtral-8x7b-v0.1 olmoe-1b-7b-0924 qwen3-30b-a3b; do
  cfg="$data/model-configs/$m/config.json"
  case_ "$m-p5x8" --workload "$cfg" --node-type p5.48xlarge --nodes 8
  case_ "$m-p5x32-fp8-full" --workload "$cfg" --node-type p5.48xlarge --nodes 32 --precision fp8 --recompute full --ep-overlap --a2av-skew 0.5
  case_ "$m-p5x4-vpp" --workload "$cfg" --node-type p5.48xlarge --nodes 4 --vpp 1-4 --tp 1,2 --no-sequence-parallel --bf16-moments
done
case_ qwen-ep --workload "$data/model-configs/qwen3-30b-a3b/config.json" --node-type p5.48xlarge --nodes 8 --ep 8,16 --a2av-skew 0.5 \
  --out qwen-ep.plan.json --force
case_ mixtral-script --workload "$data/megatron/train_mixtral_8x7b.sh" --node-type p5.48xlarge --nodes 16
case_ dsv3-args --workload "$data/megatron/deepseek_v3_style.args" --node-type p5.48xlarge --nodes 32 --tp-across-nodes --pp 8,16
case_ cpu --workload "$data/model-configs/olmoe-1b-7b-0924/config.json" --cpu-slots 4 --nodes 2 --gpu-memory 80 --peak-tflops 100
case_ unfit --workload "$data/model-configs/deepseek-v3/config.json" --node-type p5.48xlarge --nodes 2
case_ badsize --workload "$data/model-configs/qwen3-30b-a3b/config.json" --node-type p5.48xlarge --nodes 8 --tp 3
echo "$n cases in $out"
