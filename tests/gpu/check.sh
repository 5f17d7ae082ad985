#!/usr/bin/env bash
# Device check of the NCCL backend, on a machine with one GPU or more (about 2-4 minutes).
#   tests/gpu/check.sh            # installs what is missing, builds into build-gpu/, runs
#   MESHBENCH_BUILD_DIR=DIR CUDA_HOME=/usr/local/cuda NCCL_HOME=... tests/gpu/check.sh
#   tests/gpu/check.sh --devices-only PATH/TO/nccl_check   # only steps 1 and 4-5, with that program
# What it shows:
#   1. the machine: nvidia-smi, the CUDA and NCCL found; the GPUs CUDA shows this process, which
#      are what counts (nvidia-smi ignores CUDA_VISIBLE_DEVICES and lists GPUs CUDA may hide);
#   2. the build: configure summary "backends: mpi nccl", `meshbench --version` listing nccl;
#   3. every op (all_reduce, all_gather, reduce_scatter, all_to_all, all_to_allv, send_recv)
#      through the NCCL backend and the run's driver, both timing modes, check mode on, at
#      several sizes, as a table with #wrong; the corrupt flag seen as one wrong element; an
#      NCCL/CUDA error reported as one line with op, size and ranks;
#   4. the GPU chosen by PCI bus id, and through CUDA_VISIBLE_DEVICES by index and by UUID;
#   5. two ranks on one GPU refused with one line and status 2;
#   6. with several GPUs, the same table over one group of all of them;
#   7. the driver's NVML read by run's sampler (a reading, a 1 s window at 50 ms) and doctor's
#      gpu.health check from NVML; pinned host<->GPU copies from GPU 0's NUMA node and a remote one.
# Any wrong element or unexpected outcome ends the script with a non-zero status and FAILED.
# tests/gpu/check_devices_test.sh runs --devices-only with stand-ins for nvidia-smi, mpirun and
# nccl_check (one GPU of eight visible, by index and by UUID).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${MESHBENCH_BUILD_DIR:-$root/build-gpu}"
devices_only=""
if [ "${1:-}" = "--devices-only" ]; then
  devices_only="${2:?--devices-only needs the nccl_check program}"
  scratch="$(mktemp -d)"
  trap 'rm -rf -- "$scratch"' EXIT
  build="$scratch/check"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
started=$SECONDS

step() { printf '\n==== %s (%ds)\n' "$*" "$((SECONDS - started))"; }
fail() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }

# "0000:19:00.0" from nvidia-smi's "00000000:19:00.0" (and CUDA's spelling, any case).
norm_pci() {
  local p="${1,,}"
  p="${p// /}"
  local domain="${p%%:*}" rest="${p#*:}"
  if [ "$rest" = "$p" ] || [ "${rest//[^:]/}" != ":" ]; then echo "$p"; return; fi
  printf '%04x:%s\n' "$((16#$domain))" "$rest"
}

# "INDEX UUID" of the GPU at bus id $1 in nvidia-smi's list of the node's GPUs.
smi_gpu() {
  local want index bus uuid
  want="$(norm_pci "$1")"
  while IFS=', ' read -r index bus uuid; do
    if [ "$(norm_pci "$bus")" = "$want" ]; then echo "$index $uuid"; return 0; fi
  done < <(nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv,noheader)
  return 1
}

# Sets gpus, first_pci, first_index, first_uuid from the GPUs CUDA shows this process.
visible_gpus() {
  local -a pcis
  mapfile -t pcis < <("$check" --list-devices | awk '{print $2}')
  gpus=${#pcis[@]}
  [ "$gpus" -ge 1 ] || fail "CUDA shows no GPU to this process (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset})"
  first_pci="${pcis[0]}"
  local row
  row="$(smi_gpu "$first_pci")" || fail "nvidia-smi does not list $first_pci, the first GPU CUDA shows"
  read -r first_index first_uuid <<<"$row"
  echo "CUDA shows $gpus GPU(s) (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}): ${pcis[*]}"
  echo "the first is nvidia-smi's GPU $first_index ($first_uuid)"
}

# Steps 4 and 5: the GPU choice of the backend and the refusal of a shared GPU.
check_gpu_choice() {
  step "GPU chosen by PCI bus id ($first_pci) and through CUDA_VISIBLE_DEVICES by index ($first_index) and UUID"
  timeout 60 mpirun -np 1 "$check" --sizes 1K --gpu-pci "$first_pci" | tail -2 || fail "choice by PCI bus id"
  # CUDA numbers GPUs in PCI order, as nvidia-smi does, only with CUDA_DEVICE_ORDER=PCI_BUS_ID.
  CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES="$first_index" timeout 60 mpirun -np 1 -x CUDA_DEVICE_ORDER -x CUDA_VISIBLE_DEVICES \
    "$check" --sizes 1K --gpu-index "$first_index" | tail -2 || fail "CUDA_VISIBLE_DEVICES=$first_index with slot index $first_index"
  # UUIDs carry no index: the slot's bus id names the GPU (the rule for a live topology).
  CUDA_VISIBLE_DEVICES="$first_uuid" timeout 60 mpirun -np 1 -x CUDA_VISIBLE_DEVICES \
    "$check" --sizes 1K --gpu-pci "$first_pci" | tail -2 || fail "CUDA_VISIBLE_DEVICES=$first_uuid with the slot's bus id"
  local other=$((first_index + 1)) status
  set +e
  CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES="$first_index" mpirun -np 1 -x CUDA_DEVICE_ORDER -x CUDA_VISIBLE_DEVICES \
    "$check" --sizes 1K --gpu-index "$other" >/dev/null 2>"$build.visible.err"
  status=$?
  set -e
  cat "$build.visible.err"
  if [ "$status" -ne 2 ] || ! grep -q "CUDA_VISIBLE_DEVICES=$first_index does not list it" "$build.visible.err"; then
    fail "a slot outside CUDA_VISIBLE_DEVICES should fail with status 2 and say so (got $status)"
  fi

  step "two ranks on GPU $first_pci are refused with one line"
  bash "$root/tests/gpu/device_error_test.sh" "$check" "$first_pci" || fail "device error"
}

if [ -n "$devices_only" ]; then
  check="$devices_only"
  step "machine"
  nvidia-smi --query-gpu=index,pci.bus_id,uuid --format=csv,noheader || fail "nvidia-smi cannot talk to the driver"
  visible_gpus
  check_gpu_choice
  step "done"
  echo "NCCL backend device choice check: OK"
  exit 0
fi

step "machine"
command -v nvidia-smi >/dev/null || fail "nvidia-smi not found: this script needs a machine with an NVIDIA GPU and its driver"
nvidia-smi || fail "nvidia-smi cannot talk to the driver"
nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | grep -q . || fail "nvidia-smi lists no GPU"

cuda="${CUDA_HOME:-/usr/local/cuda}"
[ -d "$cuda/include" ] || fail "no CUDA toolkit at $cuda (set CUDA_HOME)"
nccl_h="$(ls "${NCCL_HOME:-$cuda}"/include/nccl.h 2>/dev/null || ls /usr/include/nccl.h 2>/dev/null || true)"
[ -n "$nccl_h" ] || fail "nccl.h not found next to CUDA ($cuda) or in /usr/include (set NCCL_HOME)"
echo "CUDA: $cuda ($(grep -m1 -o 'CUDA_VERSION [0-9]*' "$cuda/include/cuda.h" || true))"
echo "NCCL headers: $nccl_h ($(grep -E '^#define NCCL_(MAJOR|MINOR|PATCH)' "$nccl_h" | awk '{print $3}' | paste -sd.))"

step "dependencies"
# shellcheck source=scripts/deps.sh
source "$root/scripts/deps.sh"
# Only what building needs: the cluster and plotting packages play no part here.
MESHBENCH_PACKAGES=(g++ cmake make pkg-config libopenmpi-dev openmpi-bin libhwloc-dev libhdf5-dev
  libboost-program-options-dev libgtest-dev libpugixml-dev nlohmann-json3-dev)
meshbench_install_deps || fail "could not install the build dependencies (offline? install: ${MESHBENCH_PACKAGES[*]})"

step "configure and build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMESHBENCH_WITH_NCCL=ON \
  -DCUDAToolkit_ROOT="$cuda" ${NCCL_HOME:+-DNCCL_ROOT="$NCCL_HOME"} >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; fail "configure"; }
grep -E '^-- +(CUDA Toolkit|NCCL|backends) ' "$build.configure.log"
grep -Eq '^-- +backends +: mpi nccl$' "$build.configure.log" || fail "the configure summary does not say 'backends: mpi nccl'"
cmake --build "$build" -j "$(nproc)" --target meshbench nccl_check gpu_health_check test_bench >"$build.build.log" 2>&1 ||
  { tail -50 "$build.build.log"; fail "build"; }
"$build/meshbench" --version
"$build/meshbench" --version | grep -q 'nccl' || fail "meshbench --version does not list nccl"
check="$build/gpu/nccl_check"

step "GPUs CUDA shows this process"
visible_gpus

step "unit tests of the bench module (on a GPU machine: GPU count and NCCL build)"
"$build/tests/test_bench" --gtest_brief=1 || fail "test_bench"

step "every op, check mode on, one rank (world 1, groups of 1)"
timeout 240 mpirun -np 1 "$check" --sizes 4,1K,64K,1M,16M,64M | tee "$build.check1.log" || fail "nccl_check on one rank"
grep -q 'WRONG' "$build.check1.log" && fail "wrong elements"
grep -q '^# corrupt probe: 1 wrong' "$build.check1.log" || fail "corrupt probe"
grep -q '^# error probe: OK' "$build.check1.log" || fail "error probe"

check_gpu_choice

if [ "$gpus" -ge 2 ]; then
  step "every op over one group of $gpus GPUs"
  timeout 240 mpirun -np "$gpus" --oversubscribe "$check" --sizes 1K,1M,16M | tee "$build.checkn.log" || fail "nccl_check on $gpus ranks"
  grep -q 'WRONG' "$build.checkn.log" && fail "wrong elements on $gpus ranks"
fi

step "GPU health through the driver's NVML, host<->GPU copies"
numa="$(cat "/sys/bus/pci/devices/$(norm_pci "$first_pci")/numa_node" 2>/dev/null || echo 0)"
timeout 120 "$build/gpu/gpu_health_check" "$((numa < 0 ? 0 : numa))" || fail "gpu_health_check"
"$build/meshbench" doctor --format json >"$build.doctor.json" || true
python3 -c 'import json,sys; c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["id"]=="gpu.health"][0]; print(c["status"], c["reason"]); sys.exit(c["status"] not in ("PASS","WARN") or "nvml" not in json.dumps(c["details"]))' \
  "$build.doctor.json" || fail "doctor's gpu.health did not read NVML"

step "done"
echo "NCCL backend device check: OK in $((SECONDS - started)) s"
