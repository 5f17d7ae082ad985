#!/usr/bin/env bash
# Installs what is missing, builds, and runs the unit and integration tests through CTest.
#   scripts/test.sh [extra ctest arguments, e.g. -L unit]
#   scripts/test.sh --sanitize [ctest args]   AddressSanitizer + UndefinedBehaviorSanitizer build in
#                                             build-asan/ (default: every unit and integration test)
#   scripts/test.sh --tsan [ctest args]       ThreadSanitizer build in build-tsan/ (default: the
#                                             tests that run the watchdog's and the run's threads)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode=""
case "${1:-}" in
  --sanitize) mode=asan; shift ;;
  --tsan) mode=tsan; shift ;;
esac
# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
meshbench_install_deps
default_args=()
if [[ -n $mode ]]; then
  # Own build tree: the sanitizer flags change every object file.
  export MESHBENCH_BUILD_DIR="${MESHBENCH_BUILD_DIR:-$root/build-$mode}"
  sanitizers="address,undefined"
  [[ $mode == asan ]] || sanitizers="thread"
  export MESHBENCH_CMAKE_ARGS="${MESHBENCH_CMAKE_ARGS:-} -DMESHBENCH_SANITIZE=$sanitizers"
  # Before the build: test discovery runs the test binaries.
  # shellcheck source=tests/sanitizers/env.sh
  source "$root/tests/sanitizers/env.sh"
  # The watchdog's thread lives in `meshbench run` (integration.run.*, the fidelity benchmark's
  # driver); the unit tests of bench cover the code it shares with the main thread.
  [[ $mode == asan ]] || default_args=(-R '^(integration\.run\.|bench\.)')
fi
meshbench_build "$root"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$build"
if [[ $mode == asan && $# -eq 0 ]]; then
  # Two passes: the unit tests with LeakSanitizer, the integration tests without it (its
  # exit-time tracer crashes in `meshbench run`'s ranks; tests/sanitizers/env.sh).
  status=0
  ctest --output-on-failure --timeout 900 -L unit || status=$?
  MESHBENCH_DETECT_LEAKS=0 bash -c "source '$root/tests/sanitizers/env.sh' && exec ctest --output-on-failure --timeout 900 -L integration -LE unit" || status=$?
  exit "$status"
fi
[[ $# -gt 0 ]] || set -- "${default_args[@]}"
ctest --output-on-failure --timeout 900 "$@"
