#!/usr/bin/env bash
# tests/gpu/check.sh's GPU counting, naming and choice, with stand-ins on PATH (stand_ins/): an
# nvidia-smi that lists eight GPUs whatever CUDA_VISIBLE_DEVICES says, a CUDA device listing
# that applies it (and numbers GPUs in reverse PCI order unless CUDA_DEVICE_ORDER=PCI_BUS_ID),
# and mpirun. Each case: the script passes, names the GPU CUDA shows first, and every run it
# makes chose that GPU and no other.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fakes="$here/stand_ins"
failures=0

run_case() {  # NAME EXPECTED_BUS EXPECTED_SMI_INDEX EXPECTED_COUNT [VAR=VALUE ...]
  local name="$1" bus="$2" index="$3" count="$4"
  shift 4
  local log out status
  log="$(mktemp)" out="$(mktemp)"
  env -u CUDA_VISIBLE_DEVICES -u CUDA_DEVICE_ORDER PATH="$fakes:$PATH" FAKE_LOG="$log" "$@" \
    bash "$here/check.sh" --devices-only "$fakes/nccl_check" >"$out" 2>&1
  status=$?
  local problems=()
  [ "$status" -eq 0 ] || problems+=("check.sh exited $status")
  grep -q "^CUDA shows $count GPU(s)" "$out" || problems+=("did not count $count GPU(s) through CUDA")
  grep -q "the first is nvidia-smi's GPU $index " "$out" || problems+=("did not name nvidia-smi's GPU $index")
  local runs others
  runs="$(grep -c '^chose ' "$log")"
  others="$(grep '^chose ' "$log" | grep -vc "^chose $bus\$")"
  [ "$runs" -ge 3 ] || problems+=("only $runs run(s) chose a GPU")
  [ "$others" -eq 0 ] || problems+=("$others run(s) chose another GPU than $bus: $(grep -v "$bus" "$log" | tr '\n' ' ')")
  if [ "${#problems[@]}" -eq 0 ]; then
    echo "ok: $name ($* ): $runs runs on $bus"
  else
    echo "FAIL: $name ($*): ${problems[*]}"
    sed 's/^/    /' "$out"
    failures=$((failures + 1))
  fi
  rm -f "$log" "$out"
}

run_case "one GPU of eight, CUDA_VISIBLE_DEVICES by index" 0000:9b:00.0 4 1 CUDA_VISIBLE_DEVICES=3
run_case "one GPU of eight, by index in PCI order" 0000:5d:00.0 3 1 CUDA_VISIBLE_DEVICES=3 CUDA_DEVICE_ORDER=PCI_BUS_ID
run_case "one GPU of eight, CUDA_VISIBLE_DEVICES by UUID" 0000:cb:00.0 6 1 CUDA_VISIBLE_DEVICES=GPU-aaaa0006
run_case "two GPUs of eight" 0000:3b:00.0 1 2 CUDA_VISIBLE_DEVICES=GPU-aaaa0001,GPU-aaaa0002
run_case "all eight GPUs" 0000:db:00.0 7 8

if [ "$failures" -ne 0 ]; then echo "$failures case(s) failed"; exit 1; fi
echo "OK"
