#!/usr/bin/env bash
# Is the link-bound local cluster (up.sh --link-bound) link-bound under meshbench? Prints two
# checks (docs/slurm.md, "Link-bound mode"):
#   1. the NIC rate halved and quartered: a cross-node pair (2 nodes x 1 slot) measured at
#      RATE, RATE/2 and RATE/4. A link-bound point takes t = a + b / rate: the time at RATE/4
#      follows from the other two (3 t(R/2) - 2 t(R)); printed with its error, the ratio
#      t(R/2) / t(R) and the share b / t(R) the links' serialisation takes at RATE;
#   2. 2 ranks busy against 8: TP2 pairs inside a node (in-node ports are per slot, so the
#      links predict the same time), one node of 2 slots alone against 4 nodes x 2 all at once.
#
#   tests/perf/link_bound_check.sh [BUILD_DIR] [OUT_DIR]     (root; about 10 minutes)
#
# Environment: MBN_RATE (25mbit), MBN_IN_NODE_RATE (100mbit), MBN_DELAY (2ms),
# MBN_IN_NODE_DELAY (1ms), MBN_SIZES ("-b 256K -e 1M -f 4"), MBN_BUDGET (0.5).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"
out="${2:-$root/out/link-bound-check-$(date +%Y%m%d-%H%M%S)}"
lc="$root/slurm/localcluster"
rate="${MBN_RATE:-25mbit}"
in_rate="${MBN_IN_NODE_RATE:-100mbit}"
delay="${MBN_DELAY:-2ms}"
in_delay="${MBN_IN_NODE_DELAY:-1ms}"
read -r -a sizes <<<"${MBN_SIZES:--b 256K -e 1M -f 4}"
budget="${MBN_BUDGET:-0.5}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export MESHBENCH_LINKEMU="$build/meshbench-linkemu"

reason="$("$lc/up.sh" --can-run 2>&1)" || { echo "link_bound_check: no local cluster here: $reason" >&2; exit 2; }
mkdir -p "$out"
cp "$build/meshbench" "$out/meshbench"
mb="$out/meshbench"
cluster="lbc$$"
trap '"$lc/down.sh" --cluster "$cluster" --quiet || true' EXIT

# measure NAME NODES SLOTS NIC_RATE NP RUN_ARGS...: one cluster, one run, then down.
measure() {
  local name="$1" nodes="$2" slots="$3" nic="$4" np="$5"
  shift 5
  "$lc/up.sh" "$nodes" --slots "$slots" --link-bound --rate "$nic" --delay "$delay" \
    --in-node-rate "$in_rate" --in-node-delay "$in_delay" --cluster "$cluster" >/dev/null 2>&1
  "$lc/mpirun.sh" --cluster "$cluster" -np "$np" -- "$mb" run "${sizes[@]}" --timing per_iteration \
    --budget "$budget" --ops all_reduce,all_gather --mappings order:tp-cp-ep-dp-pp \
    --out "$out/$name.h5" --force "$@" >"$out/$name.log" 2>&1
  "$lc/down.sh" --cluster "$cluster" --quiet
}

scaled() { awk -v r="$rate" -v d="$1" 'BEGIN { match(r, /^[0-9.]+/); printf "%g%s", substr(r, 1, RLENGTH) / d, substr(r, RLENGTH + 1) }'; }
measure full 2 1 "$rate" 2
measure half 2 1 "$(scaled 2)" 2
measure quarter 2 1 "$(scaled 4)" 2
measure alone 1 2 "$rate" 2 --tp 2
measure busy 4 2 "$rate" 8 --tp 2

/usr/bin/python3 - "$out" "$rate" "$(scaled 2)" "$(scaled 4)" <<'PY'
import sys, h5py, numpy as np
out, rate, half, quarter = sys.argv[1:5]
def medians(name, dim):
    text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
    with h5py.File(f"{out}/{name}.h5") as f:
        rows = [r for r in f["/measurements"][()] if text(r["dim"]) == dim]
    return {(text(r["op"]), int(r["bytes"])): float(r["t_median_us"]) / 1000 for r in rows}
full, half_t, quarter_t = medians("full", "dp"), medians("half", "dp"), medians("quarter", "dp")
print(f"1. NIC rate {rate}, {half}, {quarter}; 2 nodes x 1 slot; times in ms")
print(f"  {'op':12} {'bytes':>8} {'t(R)':>8} {'t(R/2)':>8} {'t(R/4)':>8} {'t(R/2)/t(R)':>12} {'b/t(R)':>7} {'t(R/4) from the others':>23}")
good = 0
keys = sorted(set(full) & set(half_t) & set(quarter_t))
for k in keys:
    a, b, c = full[k], half_t[k], quarter_t[k]
    predicted = 3 * b - 2 * a
    error = abs(c - predicted) / c
    good += error <= 0.05
    print(f"  {k[0]:12} {k[1]:8d} {a:8.1f} {b:8.1f} {c:8.1f} {b / a:12.2f} {100 * (b - a) / a:6.0f}% {predicted:10.1f} ({100 * error:4.1f}% off)")
print(f"  {good} of {len(keys)} points within 5% of a + b / rate")
alone, busy = medians("alone", "tp"), medians("busy", "tp")
print(f"2. TP2 inside a node at {sys.argv[2]} NICs: 2 ranks alone (1 node) against 8 ranks busy (4 nodes, 4 pairs at once); ms")
print(f"  {'op':12} {'bytes':>8} {'alone':>8} {'busy':>8} {'busy/alone':>11}")
good = 0
for k in sorted(set(alone) & set(busy)):
    ratio = busy[k] / alone[k]
    good += abs(ratio - 1) <= 0.10
    print(f"  {k[0]:12} {k[1]:8d} {alone[k]:8.1f} {busy[k]:8.1f} {ratio:11.2f}")
print(f"  {good} of {len(set(alone) & set(busy))} points within 10% of alone (the links predict the same time)")
PY
echo "files: $out"
