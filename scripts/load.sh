#!/usr/bin/env bash
# Load check (issue 13): one `meshbench run` with 64 ranks — 8 emulated nodes x 8 slots of the
# local test cluster, oversubscribed on this machine's cores — over 4 mappings at tiny sizes.
# Prints the wall time, peak memory per rank (/usr/bin/time's maximum resident set) and the
# results file's bytes per point, per table. Needs root (the local test cluster) and a build.
#
#   scripts/load.sh [BUILD_DIR] [NODES] [SLOTS]      (defaults: build, 8, 8)
#
# Not a CTest test: it takes a minute or more of 2 shared cores. The run's output stays in
# /var/lib/meshbench/load/NAME until the next run. See docs/reliability.md "Load".
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
nodes="${2:-8}"
slots="${3:-8}"
ranks=$((nodes * slots))
lc="$root/slurm/localcluster"
exe="$build/meshbench"
[[ -x $exe ]] || { echo "load.sh: error: no $exe; build first (scripts/test.sh or cmake --build build)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "load.sh: error: /usr/bin/time is missing (Debian package: time)" >&2; exit 2; }
if ! why="$("$lc/up.sh" --can-run)"; then echo "load.sh: error: $why" >&2; exit 2; fi

# A cluster name of this build tree's own, so that two checkouts never share one.
cluster="load$(printf '%s' "$build" | md5sum | cut -c1-6)"
work="/var/lib/meshbench/load/$cluster"   # not /tmp: the cluster's files live outside it
rm -rf "$work"
mkdir -p "$work"
cleanup() { "$lc/down.sh" --cluster "$cluster" --quiet || true; }
trap cleanup EXIT
"$lc/up.sh" "$nodes" --slots "$slots" --rate 1gbit --cluster "$cluster" >/dev/null 2>&1

# TP8 x PP2 x DP4: 8 groups of 8, 32 pairs and 16 groups of 4 at once; 4 mappings, 2 sizes
# (1 KiB and up: an all-gather of less than one element per rank moves nothing and is skipped).
args=(run --tp 8 --pp 2 --top 4 --sizes "1K,4K" --ops "all_reduce,all_gather,send_recv" --timing per_iteration
      --budget 0.05 --min-iters 5 --max-iters 20 --warmup 1 --no-doctor --watchdog 120 --out "$work/load.h5")
start=$SECONDS
# Each rank's peak resident set into a file of its own (lines of 64 ranks interleave on stderr).
mkdir -p "$work/rss"
# shellcheck disable=SC2016  # $OMPI_COMM_WORLD_RANK and $0 belong to the rank's shell
if ! "$lc/mpirun.sh" --cluster "$cluster" -np "$ranks" -- sh -c 'exec /usr/bin/time -f %M -o "$0/rss/$OMPI_COMM_WORLD_RANK" "$@"' \
  "$work" "$exe" "${args[@]}" >"$work/stdout" 2>"$work/stderr"; then
  tail -n 30 "$work/stderr" >&2
  echo "load.sh: error: the $ranks-rank run failed (output in $work)" >&2
  exit 1
fi
wall=$((SECONDS - start))

/usr/bin/python3 - "$work" "$ranks" "$wall" <<'EOF'
import os, statistics, sys
import h5py
work, ranks, wall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rss = [int(open(os.path.join(work, "rss", r)).read().split()[-1]) for r in os.listdir(os.path.join(work, "rss"))]
assert len(rss) == ranks, f"{len(rss)} memory figures for {ranks} ranks"
path = os.path.join(work, "load.h5")
with h5py.File(path, "r") as f:
    rows = len(f["measurements"])
    mappings = len(f["mappings/table"])
    assert f.attrs["status"] == "complete", f.attrs["status"]
    assert (f["measurements"]["wrong"] == 0).all()
    tables = {n: (len(f[n]), f[n].id.get_storage_size()) for n in ("measurements", "group_timings", "samples")}
size = os.path.getsize(path)
print(f"{ranks} ranks, {mappings} mappings, {rows} points, wall {wall} s")
print(f"peak RSS per rank: min {min(rss) / 1024:.1f} MiB, median {statistics.median(rss) / 1024:.1f} MiB, max {max(rss) / 1024:.1f} MiB")
print(f"results file {size} B, {size / rows:.0f} B per point (header included)")
for n, (count, stored) in tables.items():
    print(f"  /{n}: {count} rows, {stored} B allocated, {stored / rows:.0f} B per point")
EOF
