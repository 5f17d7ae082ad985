#!/usr/bin/env bash
# Fidelity benchmark (issue 4): meshbench's median per-op time against a plain MPI timing loop,
# for all-reduce, all-to-all and send/recv from 8 B to 4 MiB on 2 ranks. Prints the ratios (the
# median of the per-round ratios of the two harnesses run back to back).
# Both harnesses run in the same two processes, interleaved round by round (tests/perf/fidelity.cpp):
# on a shared machine two separate launches differ more from each other than the harnesses do.
#   scripts/fidelity.sh [ITERS [ROUNDS]]      (after scripts/test.sh or a build into build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
cmake --build "$build" -j "$(nproc)" --target perf_fidelity >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun -np 2 --bind-to core "$build/perf/perf_fidelity" "${1:-2000}" "${2:-15}"
