#!/usr/bin/env bash
# With fake credentials in the environment, nothing doctor writes contains them.
exe="$1"
source "$(dirname "$0")/doctor_lib.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
secrets=(AWS_SECRET_ACCESS_KEY=FAKEawsSECRETwJalrXUtnFEMIK7MDENG HF_TOKEN=hf_FAKEtokenNOTREAL123
         GITHUB_TOKEN=ghp_FAKEtokenNOTREAL456 NCCL_FAKE_API_KEY=FAKEncclKEY789 SLURM_JWT=FAKEjwtNOTREAL000)
values=()
for kv in "${secrets[@]}"; do values+=("${kv#*=}"); done
scan() {  # scan FILE WHAT
  local leaked=0
  for v in "${values[@]}"; do
    if grep -q -- "$v" "$1"; then fail "$2 contains $v"; leaked=1; fi
  done
  [ "$leaked" = 0 ] && pass "$2 has no secret"
}
printf 'export FI_PROVIDER=efa\nexport HF_TOKEN=hf_FAKEtokenNOTREAL123\n' > "$tmp/team.env"

env "${secrets[@]}" NCCL_IB_PKEY=0x8001 "$exe" doctor > "$tmp/text" 2>&1
scan "$tmp/text" "doctor text"
env "${secrets[@]}" NCCL_IB_PKEY=0x8001 "$exe" doctor --verbose --format json --output "$tmp/out.json" \
  --env-template "$tmp/team.env" > "$tmp/json" 2>&1
scan "$tmp/json" "doctor --format json"
scan "$tmp/out.json" "doctor --output file"
grep -q '"NCCL_IB_PKEY": "0x8001"' "$tmp/json" && pass "NCCL_IB_PKEY is still recorded" || fail "NCCL_IB_PKEY missing"
grep -q 'HF_TOKEN' "$tmp/json" && pass "the template's secret-like name is reported by name only"

# Under mpirun every rank's environment travels to rank 0: still nothing.
x=()
for kv in "${secrets[@]}"; do x+=(-x "$kv"); done
env "${secrets[@]}" mpirun --oversubscribe -np 2 "${x[@]}" "$exe" doctor --format json > "$tmp/mpi.json" 2>&1
scan "$tmp/mpi.json" "mpirun doctor --format json"
env "${secrets[@]}" mpirun --oversubscribe -np 2 "${x[@]}" "$exe" doctor --verbose > "$tmp/mpi.txt" 2>&1
scan "$tmp/mpi.txt" "mpirun doctor text"
finish
