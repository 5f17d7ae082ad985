#!/usr/bin/env bash
# Do two builds behave the same? Runs the same small jobs with both binaries and diffs what
# timing cannot change: the results file's schema and rows (scripts/results_shape.py), the
# planner's output, and the report and compare of one shared file.
#   scripts/same_results.sh OLD_MESHBENCH NEW_MESHBENCH
# Exit 0 when everything matches, 1 with the differences printed otherwise.
set -euo pipefail
old="$(realpath "$1")" new="$(realpath "$2")"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cp "$root/docs/examples/tiny-moe-workload.json" "$work/workload.json"
jobs=(
  "--tp 2 --pp 2 --sizes 1K,64K --budget 0.05 --top 2"
  "--tp 2 --ep 2 --etp 1 --workload $work/workload.json --sizes workload --budget 0.05 --top 2"
  "--tp 1 --ops all_reduce,all_gather,reduce_scatter,all_to_all --sizes 4K --budget 0.05"
)
status=0
for which in old new; do
  bin="${!which}"
  mkdir -p "$work/$which"
  i=0
  for args in "${jobs[@]}"; do
    # shellcheck disable=SC2086
    mpirun -np 4 --oversubscribe "$bin" run $args --no-doctor --out "$work/$which/run$i.h5" > /dev/null
    /usr/bin/python3 "$root/scripts/results_shape.py" "$work/$which/run$i.h5" > "$work/$which/run$i.shape"
    i=$((i + 1))
  done
  "$bin" plan --node-type p5.48xlarge --nodes 4 --tp 8 --ep 8 --etp 1 --pp 4 --top 3 > "$work/$which/plan.txt"
  "$bin" plan --node-type p5.48xlarge --nodes 4 --tp 8 --ep 8 --etp 1 --pp 4 --top 3 --format json > "$work/$which/plan.json"
  "$bin" report "$work/old/run1.h5" --format json > "$work/$which/report.json"
  "$bin" report "$work/old/run1.h5" > "$work/$which/report.txt"
  "$bin" compare "$work/old/run0.h5" "$work/old/run0.h5" > "$work/$which/compare.txt" || true
done
for f in "$work"/old/*.shape "$work"/old/*.txt "$work"/old/*.json; do
  name="$(basename "$f")"
  if diff -u "$f" "$work/new/$name" > "$work/$name.diff"; then
    echo "same: $name ($(wc -l < "$f") lines)"
  else
    echo "DIFFERENT: $name"
    head -40 "$work/$name.diff"
    status=1
  fi
done
exit "$status"
