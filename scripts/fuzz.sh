#!/usr/bin/env bash
# Runs one libFuzzer target (docs/reliability.md, "Fuzzing"), building build-fuzz/ with clang 14,
# libFuzzer, ASan and UBSan first if needed:
#   scripts/fuzz.sh TARGET SECONDS [RUNS] [more libFuzzer flags]
# Stops after SECONDS, after RUNS executions (default: no limit) or at the first finding. The
# working corpus is build-fuzz/corpus/TARGET (seeded from tests/fuzz/corpus/TARGET); a finding
# is saved as build-fuzz/findings/TARGET/crash-*|leak-*|timeout-*|oom-*: copy it into
# tests/fuzz/regressions/TARGET/ once the parser is fixed. Prints executions, seconds, corpus
# size and findings; exit 1 on a finding.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
targets="nccl_xml hwloc_xml topology_json workload_json plan_json cost_model_json env_file nccl_log log_merge results_h5 nccl_tests_log osu_log nic_counters"
if [ $# -lt 2 ] || ! [[ " $targets " == *" $1 "* ]] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [RUNS] [libFuzzer flags]; targets: $targets" >&2
  exit 2
fi
target="$1" seconds="$2"
shift 2
runs=-1
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then runs="$1"; shift; fi

# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
# Only this script needs clang and libFuzzer's runtime; CI replays the findings with gcc.
MESHBENCH_PACKAGES+=(clang-14 libclang-rt-14-dev)
meshbench_install_deps
build="$root/build-fuzz"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMESHBENCH_FUZZ=ON -DMESHBENCH_WITH_NCCL=OFF \
    -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 >/dev/null || exit 2
fi
cmake --build "$build" --target "fuzz_$target" -j "${MESHBENCH_FUZZ_JOBS:-2}" >/dev/null || exit 2

corpus="$build/corpus/$target" findings="$build/findings/$target"
mkdir -p "$corpus" "$findings"
log="$build/fuzz-$target.log"
marker="$build/fuzz-$target.started"
touch "$marker"
start=$(date +%s)
status=0
# -timeout: one input running 10 s is a hang; leaks are reported (ASan's LeakSanitizer) except
# hwloc's own (tests/fuzz/lsan.supp says which and why).
# The targets that read a path write each input to a temporary file: keep it in memory.
if [ -z "${TMPDIR:-}" ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0"
# An allocation past 1 GiB fails as malloc does (a damaged HDF5 length asks for gigabytes; the
# results reader's child refuses such a file), instead of libFuzzer calling it an out-of-memory.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=1024:allocator_may_return_null=1"
"$build/fuzz/fuzz_$target" "$corpus" "$root/tests/fuzz/corpus/$target" -max_total_time="$seconds" -runs="$runs" \
  -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$findings/" "$@" >"$log" 2>&1 || status=$?
elapsed=$(( $(date +%s) - start ))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
new=$(find "$findings" -type f -newer "$marker")
count=$(printf '%s' "$new" | grep -c . || true)
echo "fuzz $target: executions ${execs:-?}, seconds $elapsed, exec/s ${rate:-?}, corpus $(find "$corpus" -type f | wc -l) files," \
     "findings $count (log: $log)"
if [ "$status" -ne 0 ] || [ "$count" -gt 0 ]; then
  grep -m3 -E "ERROR: |runtime error|meshbench fuzz finding|terminate called" "$log" >&2 || true
  printf '%s\n' "$new" >&2
  exit 1
fi
