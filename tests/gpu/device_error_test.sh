#!/usr/bin/env bash
# Two ranks both on one GPU through the NCCL backend (GPU index 0, or the GPU at bus id PCI):
# whatever GPUs this machine has (none, one, several), the device check must refuse with exit
# status 2 and exactly one error line (mpirun --quiet keeps its own banner out of the count).
#   device_error_test.sh PATH/TO/nccl_check [PCI]
set -uo pipefail
exe="$1"
if [ -n "${2:-}" ]; then gpu=(--gpu-pci "$2"); else gpu=(--gpu-index 0); fi
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
mpirun --quiet -np 2 --oversubscribe "$exe" "${gpu[@]}" >/dev/null 2>"$err"
status=$?
lines="$(grep -c . "$err")"
echo "exit status $status; stderr:"
cat "$err"
if [ "$status" -ne 2 ]; then echo "FAIL: expected exit status 2"; exit 1; fi
if [ "$lines" -ne 1 ]; then echo "FAIL: expected one line on stderr, got $lines"; exit 1; fi
if ! grep -Eq '^nccl_check: error: (rank 0 on .*: no CUDA device is visible|node .* runs 2 ranks but its ranks see only 1 GPU|ranks 0 and 1 on .* would share GPU)' "$err"; then
  echo "FAIL: not the expected device error"; exit 1
fi
echo "OK"
