#!/usr/bin/env bash
# Installs what is missing, builds, and runs the unit and integration tests through CTest.
#   scripts/test.sh [extra ctest arguments, e.g. -L unit]   every test (what CI runs)
#   scripts/test.sh --quick [ctest args]      the edit-build-test loop: the unit tests and the
#                                             integration tests that take under 5 s (every test
#                                             not labelled slow; tests/CMakeLists.txt)
#   scripts/test.sh --sanitize [ctest args]   AddressSanitizer + UndefinedBehaviorSanitizer build in
#                                             build-asan/ (default: every unit and integration test)
#   scripts/test.sh --tsan [ctest args]       ThreadSanitizer build in build-tsan/ (default: the
#                                             tests that run the watchdog's, the GPU sampler's
#                                             and the planner's threads)
# With `-L unit` (or `-L '^unit$'`) as its only arguments it builds only what the unit tests run
# (the target meshbench_unit_tests), as CI's sanitizer step does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="" quick=0
case "${1:-}" in
  --sanitize) mode=asan; shift ;;
  --tsan) mode=tsan; shift ;;
  --quick) quick=1; shift ;;
esac
# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
MESHBENCH_PACKAGES+=("${MESHBENCH_TEST_PACKAGES[@]}")
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
  # The run's threads: the watchdog's (integration.run.*, and the bench unit tests for the code
  # it shares with the main thread), the GPU health sampler's (integration.gpu_health.*, the
  # nvml unit tests against the stand-in library) and the planner's concurrent scoring.
  [[ $mode == asan ]] || default_args=(-R '^(integration\.run\.|integration\.gpu_health\.|bench\.|nvml\.|mapping\.ConcurrentScore\.)')
fi
targets=()
if [[ $# -eq 2 && $1 == -L && $2 =~ ^\^?unit\$?$ ]]; then targets=(meshbench_unit_tests); fi
meshbench_build "$root" "${targets[@]}"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
# The unit tests run side by side, one per core; every other test runs alone (tests/CMakeLists.txt).
export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$build"
[[ $# -gt 0 ]] || set -- "${default_args[@]}"
[[ $quick -eq 0 ]] || set -- -LE '^slow$' "$@"
ctest --output-on-failure --timeout 900 "$@"
