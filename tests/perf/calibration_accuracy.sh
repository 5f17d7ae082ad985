#!/usr/bin/env bash
# How well the calibrated cost model predicts on the local test cluster (docs/mapping.md,
# "Calibration: accuracy on the local cluster"). Brings up 4 emulated nodes x 2 slots in the
# link-bound mode (up.sh --link-bound: every rank behind emulated links, so that links and not
# the two cores' scheduler set the time): NICs at 25 Mbit/s with 2 ms each way, node 3's at
# 12.5 Mbit/s, in-node ports at 100 Mbit/s with 1 ms. Calibrates once (the probe), then measures
# two layouts the probe did not use, each over the plan's mappings plus 8 random placements, and
# prints for each: the mappings, Spearman, regret, the median error of the mappings' totals and
# per point (>= 64 KiB, concurrent) of three predictors — uncalibrated, calibrated, and
# calibrated without the sharing term (its exponents set to 0, every flow as if alone) — and how
# each orders the pairs of mappings that differ by more than their rounds' noise
# (tests/perf/mapping_order.py).
#
#   tests/perf/calibration_accuracy.sh [BUILD_DIR] [OUT_DIR]     (root; about 40 minutes)
#
# Environment: MBN_ROUNDS (3), MBN_BUDGET (0.3 s per point), MBN_RANDOM (8), MBN_PROBE_SIZES
# ("-b 256 -e 256K -f 4"), MBN_SIZES (TP2 DP4's, "-b 4K -e 256K -f 4"), MBN_RATE (25mbit),
# MBN_SLOW_RATE (node 3's, 12.5mbit), MBN_IN_NODE_RATE (100mbit), MBN_DELAY (2ms),
# MBN_IN_NODE_DELAY (1ms).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"
out="${2:-$root/out/calibration-accuracy-$(date +%Y%m%d-%H%M%S)}"
lc="$root/slurm/localcluster"
rounds="${MBN_ROUNDS:-3}"
budget="${MBN_BUDGET:-0.3}"
random="${MBN_RANDOM:-8}"
read -r -a probe_sizes <<<"${MBN_PROBE_SIZES:--b 256 -e 256K -f 4}"
read -r -a sizes <<<"${MBN_SIZES:--b 4K -e 256K -f 4}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export MESHBENCH_LINKEMU="$build/meshbench-linkemu"

reason="$("$lc/up.sh" --can-run 2>&1)" || { echo "calibration_accuracy: no local cluster here: $reason" >&2; exit 2; }
mkdir -p "$out"
# The emulated nodes see this machine's files, but each has a private /tmp: keep everything
# under OUT_DIR, the binary included (a rebuild during the run must not change it).
cp "$build/meshbench" "$out/meshbench"
# A small MoE, so that its messages (16-128 KiB) take a fraction of a second on 25 Mbit/s links.
cat >"$out/workload.json" <<'JSON'
{"name": "link-bound-moe", "layers": 2, "hidden": 256, "ffn_hidden": 512, "kv_hidden": 64, "seq_len": 256,
 "micro_batch": 1, "micro_batches": 4, "experts": 2, "top_k": 2, "vocab": 256, "sequence_parallel": false,
 "dense_params": 65536, "expert_params": 65536}
JSON
mb="$out/meshbench"
cluster="ca$$"
trap '"$lc/down.sh" --cluster "$cluster" --quiet || true' EXIT
"$lc/up.sh" 4 --slots 2 --link-bound --rate "${MBN_RATE:-25mbit}" --node-rate "3=${MBN_SLOW_RATE:-12.5mbit}" \
  --in-node-rate "${MBN_IN_NODE_RATE:-100mbit}" --delay "${MBN_DELAY:-2ms}" --in-node-delay "${MBN_IN_NODE_DELAY:-1ms}" \
  --cluster "$cluster" >/dev/null
run8() { "$lc/mpirun.sh" --cluster "$cluster" -np 8 -- "$mb" "$@"; }

started=$SECONDS
run8 calibrate "${probe_sizes[@]}" --out "$out/cost.json" --results "$out/probe" --force | tail -n 4
probe_s=$((SECONDS - started))
echo "probe and fit: ${probe_s} s"

# The same calibration without the sharing term: every flow priced as if it ran alone.
/usr/bin/python3 - "$out/cost.json" "$out/cost-no-sharing.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for k in ("nic", "uplink"):
    if c["sharing"][k]["exponent"] is not None:
        c["sharing"][k]["exponent"] = 0.0
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY

common=(--random "$random" --rounds "$rounds" --budget "$budget" --timing per_iteration --min-iters 10 --force)
started=$SECONDS
run8 run --tp 2 --ep 2 --pp 2 --workload "$out/workload.json" --sizes workload "${common[@]}" --out "$out/tp2ep2pp2.h5" >"$out/tp2ep2pp2.log"
echo "TP2 EP2 PP2 (workload): measured in $((SECONDS - started)) s"
started=$SECONDS
run8 run --tp 2 "${sizes[@]}" "${common[@]}" --out "$out/tp2dp4.h5" >"$out/tp2dp4.log"
echo "TP2 DP4 (no workload, ${sizes[*]}): measured in $((SECONDS - started)) s"

for layout in tp2ep2pp2 tp2dp4; do
  "$mb" report "$out/$layout.h5" --cost-model "$out/cost.json" --format json >"$out/$layout.report.json"
  "$mb" report "$out/$layout.h5" --cost-model "$out/cost-no-sharing.json" --format json >"$out/$layout.no-sharing.json"
  /usr/bin/python3 - "$layout" "$out/$layout.report.json" "$out/$layout.no-sharing.json" <<'PY'
import json, sys
layout, with_sharing, without = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
def predictors(report):
    return {p["name"]: p for p in report["prediction_accuracy"]["predictors"]}
a, b = predictors(with_sharing), predictors(without)
rows = [("uncalibrated", a["uncalibrated"]), ("calibrated", a["calibrated"]), ("calibrated, no sharing term", b["calibrated"])]
print(f"{layout}: {a['calibrated']['order']['mappings']} mappings")
print(f"  {'predictor':30} {'Spearman':>9} {'regret':>8} {'totals':>7} {'median err >=64K':>17} {'p90':>7} {'concurrent shared >=64K':>24}")
for name, p in rows:
    o, pts = p["order"], p["points"]
    print(f"  {name:30} {o['spearman']:9.3f} {100 * o['regret']:7.1f}% {100 * o['error']['median_rel_error']:6.1f}% "
          f"{100 * pts['concurrent_large']['median_rel_error']:16.1f}% {100 * pts['concurrent_large']['p90_rel_error']:6.1f}% "
          f"{100 * pts['shared_large']['median_rel_error']:23.1f}%")
PY
  # The pairs of mappings the measurement tells apart (their rounds' noise), and how each model orders them.
  for predictor in uncalibrated calibrated; do
    printf '  pairs, %-28s ' "$predictor:"
    /usr/bin/python3 "$root/tests/perf/mapping_order.py" "$out/$layout.h5" "$out/$layout.report.json" "$predictor"
  done
  printf '  pairs, %-28s ' "calibrated, no sharing term:"
  /usr/bin/python3 "$root/tests/perf/mapping_order.py" "$out/$layout.h5" "$out/$layout.no-sharing.json" calibrated
done
echo "files: $out"
