# Sourced by quickstart.sh and test.sh: the Debian packages meshbench needs, installed when missing.
# Debian 12 names; CUDA and NCCL are optional and never installed here.
MESHBENCH_PACKAGES=(
  # ninja-build: the build tool (scripts build with CMake's Ninja generator); lld: the linker
  g++ cmake make ninja-build lld pkg-config
  libopenmpi-dev openmpi-bin
  libhwloc-dev hwloc-nox
  libhdf5-dev hdf5-tools
  libboost-program-options-dev
  libgtest-dev
  libpugixml-dev nlohmann-json3-dev libyaml-cpp-dev
  libfabric-dev libfabric-bin
  python3 python3-h5py python3-pandas python3-matplotlib python3-numpy
  slurmctld slurmd slurm-client libpmix-dev
  iproute2 util-linux procps
)
# What only the tests need (test.sh and CI add these; quickstart.sh does not): chromium is most
# of the packages' download and install time.
# shellcheck disable=SC2034 # used by the scripts that source this file
MESHBENCH_TEST_PACKAGES=(
  # python3-jsonschema: compare's JSON is validated against docs/compare.schema.json
  python3-jsonschema
  # report --html is tested in a real browser; python3-pil reads its screenshots' pixels
  chromium python3-pil
  # iptables: the fault tests' packet loss (kernels without netem); time: scripts/load.sh's memory per rank
  iptables time
)

# What scripts/check.sh (and so CI) adds: clang-format 14, whose output is the code's style, and
# clang-tidy 22 (docs/development.md, "Guard rails", says why that version).
# shellcheck disable=SC2034 # used by the scripts that source this file
MESHBENCH_CHECK_PACKAGES=(clang-format clang-tidy-22)
# shellcheck disable=SC2034
MESHBENCH_CLANG_TIDY=clang-tidy-22

meshbench_install_deps() {
  local missing=()
  for p in "${MESHBENCH_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "meshbench: installing ${#missing[@]} missing Debian package(s): ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "meshbench: error: missing packages and not root; run: apt-get install -y ${missing[*]}" >&2
      return 2
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null || return 2
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null || return 2
}

# meshbench_build ROOT [TARGET...]: configures and builds into $MESHBENCH_BUILD_DIR (default: build/): Ninja, a unity build
# (CMAKE_UNITY_BUILD with CMAKE_UNITY_BUILD_BATCH_SIZE=0: each library and test binary compiles
# all its sources as one translation unit, so the heavy headers' templates and inline functions
# are compiled once a target, not once a file or a batch) and line tables only (-O2 -g1).
# docs/development.md, "CI", has what each saves. Extra CMake arguments come from
# $MESHBENCH_CMAKE_ARGS and win over these (-DCMAKE_UNITY_BUILD=OFF, or
# -DCMAKE_UNITY_BUILD_BATCH_SIZE=8, for a tree where an edited file should recompile alone or with
# few others; -DMESHBENCH_LINE_TABLES_ONLY=OFF for a debugger's view of every variable).
meshbench_build() {
  local root="$1"
  shift
  # The targets to build (default: all of them); quickstart.sh builds only what it runs.
  local targets=()
  [[ $# -eq 0 ]] || targets=(--target "$@")
  local build="${MESHBENCH_BUILD_DIR:-$root/build}"
  local generator=(-G Ninja)
  # A tree configured before the scripts used Ninja keeps its generator (CMake refuses a change).
  if [[ -f $build/CMakeCache.txt ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build/CMakeCache.txt"; then
    generator=()
  fi
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 -DMESHBENCH_LINE_TABLES_ONLY=ON ${MESHBENCH_CMAKE_ARGS:-} || return 2
  cmake --build "$build" -j "$(nproc)" "${targets[@]}" || return 2
}
