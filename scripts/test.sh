#!/usr/bin/env bash
# Installs what is missing, builds, and runs the unit and integration tests through CTest.
#   scripts/test.sh [extra ctest arguments, e.g. -L unit]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
meshbench_install_deps
meshbench_build "$root"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
cd "$build"
ctest --output-on-failure --timeout 900 "$@"
