#!/usr/bin/env bash
# Local test cluster, link-bound mode: the calibrated cost model orders measured mappings as
# they measure. 2 nodes x 2 slots (NICs 25 Mbit/s with 2 ms each way, node 1's at 12.5 Mbit/s;
# in-node 100 Mbit/s with 1 ms): `calibrate` (the probe, 1 KiB to 64 KiB), then TP2 with a
# small MoE workload over the plan's mappings and 2 random ones, 2 rounds, and `report
# --cost-model`. Each mapping's step time is summed per round from /round_medians; its noise is
# the difference between its two rounds. For every two mappings whose step times differ by
# more than their noises together and that the model does not price alike (within 1%), the
# calibrated prediction must order them the same way, and there must be such a pair (TP inside
# a node against TP across the slow NIC). Orders of
# link-bound times, not times: CPU load cannot flip them (docs/slurm.md, "Link-bound mode").
#   cluster_calibrated_order_test.sh MESHBENCH LINKEMU NAME
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
meshbench="$1"
export MESHBENCH_LINKEMU="$2"
cname="$3"
require_cluster_host 0
netns_before="$(netns_mount_state)"

work="$(mktemp -d /var/tmp/mbn-order.XXXXXX)"
trap '"$LC/down.sh" --cluster "$cname" --quiet || true; rm -rf "$work"' EXIT
cat >"$work/workload.json" <<'JSON'
{"name": "order-moe", "layers": 1, "hidden": 256, "ffn_hidden": 512, "kv_hidden": 64, "seq_len": 128,
 "micro_batch": 1, "micro_batches": 2, "experts": 2, "top_k": 2, "vocab": 256, "sequence_parallel": false,
 "dense_params": 16384, "expert_params": 16384}
JSON
"$LC/up.sh" 2 --slots 2 --link-bound --rate 25mbit --node-rate 1=12.5mbit --in-node-rate 100mbit --cluster "$cname" >/dev/null
run4() { "$LC/mpirun.sh" --cluster "$cname" -np 4 -- "$meshbench" "$@"; }

t=$SECONDS
out="$(run4 calibrate -b 1K -e 64K -f 4 --budget 0.1 --min-iters 3 --warmup 1 --out "$work/cost.json" 2>&1)" ||
  fail "calibrate on the link-bound cluster failed: $out"
pass "calibrated in $((SECONDS - t)) s"
t=$SECONDS
out="$(run4 run --tp 2 --workload "$work/workload.json" --sizes workload --random 2 --rounds 2 --timing per_iteration \
  --min-iters 5 --budget 0.1 --no-doctor --no-check --out "$work/run.h5" 2>&1)" || fail "run on the link-bound cluster failed: $out"
pass "measured in $((SECONDS - t)) s"
"$meshbench" report "$work/run.h5" --cost-model "$work/cost.json" --format json >"$work/report.json" ||
  fail "report --cost-model failed"

/usr/bin/python3 - "$work/report.json" "$work/run.h5" <<'EOF' || fail "the calibrated model mis-ordered measured mappings (above)"
import json, sys
from collections import defaultdict
import h5py
report = json.load(open(sys.argv[1]))
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
with h5py.File(sys.argv[2]) as f:
    rounds = defaultdict(dict)
    for r in f["/round_medians"][()]:
        if text(r["timing"]) == "per_iteration" and text(r["concurrency"]) == "concurrent":
            rounds[(text(r["mapping"]), text(r["dim"]), text(r["op"]), int(r["bytes"]))][int(r["round"])] = float(r["t_median_us"])
step = {}
for m in report["ranking"]["mappings"]:
    per_round = defaultdict(float)
    for op in m["ops"]:
        for k, t in rounds[(m["name"], op["source_dim"], op["op"], int(op["bytes"]))].items():
            per_round[k] += op["calls_per_step"] * t
    step[m["name"]] = sorted(per_round.values())
predicted = {t["mapping"]: t["predicted_us"] for p in report["prediction_accuracy"]["predictors"]
             if p["name"] == "calibrated" for t in p["totals"] if t["dim"] == "step"}
assert predicted, "report has no calibrated prediction"
names = sorted(step)
judged = wrong = 0
for i, a in enumerate(names):
    for b in names[i + 1:]:
        ma, mb = sum(step[a]) / len(step[a]), sum(step[b]) / len(step[b])
        noise = (step[a][-1] - step[a][0]) + (step[b][-1] - step[b][0])
        if abs(ma - mb) <= noise:
            continue
        line = (f"{a} {ma / 1e3:.1f} ms vs {b} {mb / 1e3:.1f} ms (noise {noise / 1e3:.1f} ms): predicted "
                f"{predicted[a] / 1e3:.1f} vs {predicted[b] / 1e3:.1f} ms")
        # Mappings the model prices alike (within 1%: the same shape of groups) it does not order.
        if abs(predicted[a] - predicted[b]) <= 0.01 * max(predicted[a], predicted[b]):
            print(line + ", priced alike: not ordered by the model")
            continue
        judged += 1
        same = (ma < mb) == (predicted[a] < predicted[b])
        wrong += not same
        print(line + (", same order" if same else ", WRONG ORDER"))
assert judged > 0, f"no two mappings differ by more than their noise: {step}"
assert wrong == 0, f"{wrong} of {judged} pairs mis-ordered"
print(f"{judged} pairs that differ by more than their noise, all ordered as measured")
EOF
pass "the calibrated prediction orders every pair of mappings that differ by more than their noise"
down_and_check "$cname" "$netns_before"
