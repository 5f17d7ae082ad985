#!/usr/bin/env bash
# Fidelity benchmark (issue 4): meshbench's median per-op time against a plain MPI timing loop,
# for all-reduce, all-to-all and send/recv from 8 B to 4 MiB on 2 ranks. Prints the ratios.
#   scripts/fidelity.sh [ITERS]      (run after scripts/test.sh or a build into build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
iters="${1:-2000}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mpi=(mpirun -np 2 --bind-to core)
declare -A layout=([all_reduce]="--tp 2 --dims tp" [all_to_all]="--ep 2 --etp 1 --dims ep" [send_recv]="--pp 2 --dims pp")
for op in all_reduce all_to_all send_recv; do
  # Alternate the two harnesses so that machine noise falls on both alike.
  for round in 1 2; do
    "${mpi[@]}" "$build/perf/perf_plain_mpi_loop" "$op" 8 4194304 "$iters" >> "$tmp/plain.txt"
    # shellcheck disable=SC2086
    "${mpi[@]}" "$build/meshbench" run ${layout[$op]} --ops "$op" -b 8 -e 4M -f 2 --timing per_iteration \
      --min-iters "$iters" --max-iters "$iters" --budget 1000 --no-check --out "$tmp/$op-$round.h5" > /dev/null
  done
done
/usr/bin/python3 - "$tmp" <<'PY'
import glob, sys, statistics, h5py
tmp = sys.argv[1]
plain = {}
for line in open(f"{tmp}/plain.txt"):
    op, size, med = line.split()
    plain.setdefault((op, int(size)), []).append(float(med))
mb = {}
for path in glob.glob(f"{tmp}/*.h5"):
    with h5py.File(path, "r") as f:
        for r in f["measurements"][:]:
            mb.setdefault((r["op"].decode(), int(r["bytes"])), []).append(float(r["t_median_us"]))
print(f"{'op':<12} {'size':>8} {'plain(us)':>10} {'meshbench(us)':>14} {'ratio':>7}")
worst = 0.0
for key in sorted(plain):
    if key not in mb:
        continue
    p, m = statistics.median(plain[key]), statistics.median(mb[key])
    ratio = m / p
    worst = max(worst, abs(ratio - 1))
    print(f"{key[0]:<12} {key[1]:>8} {p:>10.2f} {m:>14.2f} {ratio:>7.3f}")
print(f"largest deviation: {worst*100:.1f}%  ({'within' if worst <= 0.10 else 'OUTSIDE'} 10%)")
PY
