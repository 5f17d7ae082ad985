# shellcheck shell=bash disable=SC2034  # sourced by the stand-ins, which use these arrays
# The stand-ins' machine: eight GPUs, by nvidia-smi index (PCI order): bus id and UUID. CUDA's
# default order (CUDA_DEVICE_ORDER=FASTEST_FIRST) is taken as the reverse of the PCI order here,
# so that a caller who mixes the two numberings picks the wrong GPU and is caught.
fake_bus=(00000000:19:00.0 00000000:3B:00.0 00000000:4C:00.0 00000000:5D:00.0 00000000:9B:00.0 00000000:BB:00.0 00000000:CB:00.0 00000000:DB:00.0)
fake_uuid=(GPU-aaaa0000 GPU-aaaa0001 GPU-aaaa0002 GPU-aaaa0003 GPU-aaaa0004 GPU-aaaa0005 GPU-aaaa0006 GPU-aaaa0007)

# CUDA's spelling of a bus id: "0000:3b:00.0".
fake_cuda_pci() { local b="${1,,}"; echo "${b:4}"; }

# The physical GPUs CUDA shows, by ordinal, after CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES
# (entries are indexes in that order or UUIDs; CUDA stops at the first it cannot match).
fake_visible() {
  local -a order=()
  local i
  if [ "${CUDA_DEVICE_ORDER:-}" = "PCI_BUS_ID" ]; then order=(0 1 2 3 4 5 6 7); else order=(7 6 5 4 3 2 1 0); fi
  if [ -z "${CUDA_VISIBLE_DEVICES+x}" ]; then echo "${order[@]}"; return; fi
  local -a out=() entries
  IFS=',' read -r -a entries <<<"$CUDA_VISIBLE_DEVICES"
  local e
  for e in "${entries[@]}"; do
    e="${e// /}"
    if [[ "$e" =~ ^[0-9]+$ ]] && [ "$e" -lt 8 ]; then out+=("${order[$e]}"); continue; fi
    local found=""
    for i in 0 1 2 3 4 5 6 7; do [ "${fake_uuid[$i]}" = "$e" ] && found=$i; done
    [ -n "$found" ] || break
    out+=("$found")
  done
  echo "${out[@]}"
}
