#!/usr/bin/env bash
# Live discovery never enables hwloc's OpenCL component (it can initialise CUDA before the NCCL
# backend chooses the rank's GPU). hwloc's component log shows what it enabled; where the OpenCL
# plugin is not installed there is nothing to exclude, and the test says so.
#   topology_no_opencl.sh PATH/TO/meshbench
set -uo pipefail
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
HWLOC_COMPONENTS_VERBOSE=1 "$1" topo >/dev/null 2>"$log" || { cat "$log"; echo "FAIL: meshbench topo failed"; exit 1; }
grep -q "Enabling discovery component \`pci'" "$log" || { cat "$log"; echo "FAIL: no hwloc component log (HWLOC_COMPONENTS_VERBOSE)"; exit 1; }
if grep -q "Enabling discovery component \`opencl'" "$log"; then
  grep "opencl" "$log"
  echo "FAIL: live discovery enabled hwloc's OpenCL component"
  exit 1
fi
if grep -q "Registered discovery component \`opencl'" "$log"; then
  echo "OK: the OpenCL plugin is installed and was not enabled"
else
  echo "OK: the OpenCL plugin is not installed here (nothing to exclude)"
fi
