#!/usr/bin/env bash
# Checkpoint bandwidth on this machine: meshbench io into each folder given (default: /tmp, the
# machine's disk, and /dev/shm, a tmpfs) on 2 and 4 ranks, file per rank and one shared file, a
# few shard sizes; all rows in one results file, then its report. Figures, not a test.
#   scripts/io_figures.sh [FOLDER...]      (after a build into build/)
#   env: SIZES (default 16M,64M,256M), REPEATS (3), RANKS ("2 4"), OUT (io-figures.h5)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
sizes="${SIZES:-16M,64M,256M}"
repeats="${REPEATS:-3}"
out="${OUT:-io-figures.h5}"
folders=("$@")
[[ ${#folders[@]} -gt 0 ]] || folders=(/tmp /dev/shm)
[[ ! -e $out ]] || { echo "io_figures.sh: $out exists; remove it or set OUT" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
append=()
echo "# $(date -u +%FT%TZ) on $(hostname): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for folder in "${folders[@]}"; do
  for ranks in ${RANKS:-2 4}; do
    cmd=(mpirun -np "$ranks" "$build/meshbench" io --dir "$folder" --shard-bytes "$sizes" --repeats "$repeats" --out "$out" "${append[@]}")
    echo "\$ ${cmd[*]}"
    "${cmd[@]}"
    append=(--append)
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/meshbench" report "$out"
