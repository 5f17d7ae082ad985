#!/usr/bin/env bash
# The main job end to end on an embedded default, no cluster needed:
#   installs what is missing, builds, then
#   - as root: brings up a local test cluster (2 emulated nodes x 2 slots, 1 Gbit/s between
#     them, Slurm), submits the generated sbatch job (doctor, then run), and reports;
#   - otherwise: runs the same on this machine alone with mpirun (4 ranks), and says so.
# Prints the ranking and where the results file and the plots are.
#   scripts/quickstart.sh [--keep]      (--keep leaves the local cluster up)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
meshbench_install_deps
meshbench_build "$root"
build="${MESHBENCH_BUILD_DIR:-$root/build}"
mb="$build/meshbench"
keep=0
[[ ${1:-} == --keep ]] && keep=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

# Outputs outside /tmp: every emulated node has a private /tmp.
out="$root/out/quickstart-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
layout=(--tp 2 --ep 2 --etp 1)
run_args=("${layout[@]}" -b 64K -e 4M -f 4 --budget 0.5 --top 4)

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. plan offline: where would TP8 EP8 PP4 go on 4 p5.48xlarge nodes? (no cluster needed)"
"$mb" plan --node-type p5.48xlarge --nodes 4 --tp 8 --ep 8 --etp 1 --pp 4 --top 3

cluster=""
lc="$root/slurm/localcluster"
if [[ $(id -u) -eq 0 ]] && reason="$("$lc/up.sh" --can-run --slurm 2>&1)"; then
  cluster="qs$$"
  step "2. local test cluster: 2 emulated nodes x 2 slots, links shaped to 1 Gbit/s, Slurm"
  if [[ $keep -eq 0 ]]; then trap '"$lc/down.sh" --cluster "$cluster" --quiet || true' EXIT; fi
  "$lc/up.sh" 2 --slots 2 --rate 1gbit --slurm --cluster "$cluster" > /dev/null

  step "3. the live topology, discovered under mpirun across the emulated nodes"
  "$lc/mpirun.sh" --cluster "$cluster" -np 4 -- "$mb" topo

  step "4. the sbatch job meshbench writes (doctor first, then run), submitted to the local Slurm"
  "$mb" slurm --platform generic --env-template local --env-file "$out/meshbench.env" --nodes 2 --gpus-per-node 2 \
    --doctor --meshbench "$mb" --output-dir "$out" --run-args "${run_args[*]}" -o "$out/job.sbatch"
  job="$("$lc/sbatch.sh" --cluster "$cluster" --timeout 900 "$out/job.sbatch" | tail -n 1)" || {
    echo "quickstart: the job failed; its output:" >&2
    cat "$out"/bench-*.out >&2 || true
    exit 1
  }
  results="$out/bench-$job/results.h5"
  sed -n '1,200p' "$out/bench-$job.out" 2>/dev/null | tail -n 25 || true
else
  step "2. no local test cluster (${reason:-not root}): measuring on this machine alone with mpirun, 4 ranks"
  results="$out/results.h5"
  mpirun -np 4 --oversubscribe "$mb" run "${run_args[@]}" --out "$results" | tail -n 25
fi

step "5. report: mappings ranked by measured cost, for the ML and the infrastructure engineer"
"$mb" report "$results" --plot "$out/plots" --export "$out/best"

step "done"
echo "results file: $results"
echo "plots:        $out/plots/"
echo "best mapping: $out/best/ (rankfile, SLURM_HOSTFILE, Megatron order)"
[[ -z $cluster || $keep -eq 0 ]] || echo "local cluster '$cluster' left up; stop it with: $lc/down.sh --cluster $cluster"
