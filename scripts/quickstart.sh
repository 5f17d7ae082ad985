#!/usr/bin/env bash
# The main job end to end on an embedded default, no cluster needed:
#   installs what is missing, builds, then
#   - as root: brings up a local test cluster (2 emulated nodes x 2 slots, 1 Gbit/s between
#     them, Slurm), submits the generated sbatch job (doctor, then run), and reports;
#   - otherwise: runs the same on this machine alone with mpirun (4 ranks), and says so.
# Prints the ranking and where the results file, the plots and the HTML report are.
#   scripts/quickstart.sh [--keep]      (--keep leaves the local cluster up)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=deps.sh
source "$root/scripts/deps.sh"
meshbench_install_deps
# Only what the job runs: the meshbench binary (the test suite is scripts/test.sh's).
meshbench_build "$root" meshbench
build="${MESHBENCH_BUILD_DIR:-$root/build}"
mb="$build/meshbench"
keep=0
[[ ${1:-} == --keep ]] && keep=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1

# Outputs outside /tmp: every emulated node has a private /tmp.
out="$root/out/quickstart-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
layout=(--tp 2 --ep 2 --etp 1)
# A small MoE's step (docs/examples/tiny-moe-workload.json): the run measures its per-step sizes
# and the report ranks the mappings by communication time per training step.
cp "$root/docs/examples/tiny-moe-workload.json" "$out/workload.json"
run_args=("${layout[@]}" --workload "$out/workload.json" --sizes workload --budget 0.5 --top 4)

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
  # The job's files and binary must be visible on the emulated nodes, whose /tmp is private: a
  # checkout under /tmp has its job folder (and a copy of the binary) under /var/lib instead.
  jobdir="$out" job_mb="$mb"
  if [[ $out == /tmp/* || $mb == /tmp/* ]]; then
    jobdir="/var/lib/meshbench/quickstart/$(basename "$out")"
    mkdir -p "$jobdir"
    job_mb="$jobdir/meshbench"
    cp "$mb" "$job_mb"
    cp "$out/workload.json" "$jobdir/workload.json"
    run_args=("${layout[@]}" --workload "$jobdir/workload.json" --sizes workload --budget 0.5 --top 4)
    echo "this checkout is under /tmp, private to each emulated node: the job runs in $jobdir"
  fi
  "$job_mb" slurm --platform generic --env-template local --env-file "$jobdir/meshbench.env" --nodes 2 --gpus-per-node 2 \
    --doctor --meshbench "$job_mb" --output-dir "$jobdir" --run-args "${run_args[*]}" -o "$jobdir/job.sbatch"
  job="$("$lc/sbatch.sh" --cluster "$cluster" --timeout 900 "$jobdir/job.sbatch" | tail -n 1)" || {
    echo "quickstart: the job failed; its output:" >&2
    cat "$jobdir"/bench-*.out >&2 || true
    exit 1
  }
  results="$jobdir/bench-$job/results.h5"
  sed -n '1,200p' "$jobdir/bench-$job.out" 2>/dev/null | tail -n 25 || true
else
  step "2. no local test cluster (${reason:-not root}): measuring on this machine alone with mpirun, 4 ranks"
  results="$out/results.h5"
  mpirun -np 4 --oversubscribe "$mb" run "${run_args[@]}" --out "$results" | tail -n 25
fi

step "5. report: mappings ranked by measured cost, for the ML and the infrastructure engineer"
"$mb" report "$results" --plot "$out/plots" --export "$out/best" --html "$out/report.html"

step "done"
echo "results file: $results"
echo "plots:        $out/plots/"
echo "HTML report:  $out/report.html (one file, opens offline)"
echo "best mapping: $out/best/ (rankfile, SLURM_HOSTFILE, Megatron order)"
[[ -z $cluster || $keep -eq 0 ]] || echo "local cluster '$cluster' left up; stop it with: $lc/down.sh --cluster $cluster"
