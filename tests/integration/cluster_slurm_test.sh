#!/usr/bin/env bash
# Local test cluster, (b): the same 2 x 2 cluster with Slurm. `meshbench slurm --platform
# generic --job train` writes the job (local env template, a hostfile that interleaves the
# nodes, a job name full of shell metacharacters); sbatch.sh submits it; srun --mpi=pmix runs
# cluster_probe. Asserts the probe's hostnames, placement and rates, Slurm's reading of the job
# name, the run directory's records, and that down.sh leaves nothing behind.
#   cluster_slurm_test.sh MESHBENCH PROBE NAME WORKDIR
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
meshbench="$1"
probe="$2"
cname="$3"
work="$4/cluster-slurm-$cname"
require_cluster_host 1
# Every slurmd has a private /tmp: the job's files must be elsewhere. A build tree under /tmp
# (a CI checkout, say) gets its probe and work folder staged outside it.
stage=""
case "$probe/ $work/" in
  */tmp/*)
    stage="/var/lib/meshbench-stage-$cname"
    rm -rf "$stage"
    mkdir -p "$stage"
    cp "$probe" "$stage/"
    probe="$stage/$(basename "$probe")"
    work="$stage/work"
    ;;
esac
netns_before="$(netns_mount_state)"

trap '"$LC/down.sh" --cluster "$cname" --quiet --keep-logs "$work/logs" || true; [[ -z $stage ]] || rm -rf "$stage"' EXIT
# An output directory that sbatch's "#SBATCH --output" parser and Slurm's %-patterns must take
# literally (quotes, '#', '%', spaces, a command substitution).
runs="$work/runs \"dq\" 'sq' #h 50%x \$(touch PWNED)"
rm -rf "$work"
mkdir -p "$runs"
started=$SECONDS
"$LC/up.sh" 2 --slots 2 --rate 1gbit --slurm --cluster "$cname" >/dev/null
up_s=$((SECONDS - started))

# The placement of a mapping that puts consecutive ranks on different nodes.
printf 'mbn-%s-n1\nmbn-%s-n0\nmbn-%s-n1\nmbn-%s-n0\n' "$cname" "$cname" "$cname" "$cname" >"$work/hostfile"
# shellcheck disable=SC2016  # literal on purpose: it must never run
job_name='probe "q" '\''s'\'' $(touch PWNED) `touch PWNED`; touch PWNED #c'
"$meshbench" slurm --platform generic --job train -o "$work/probe.sbatch" --job-name "$job_name" \
  --output-dir "$runs" --env-template local --hostfile "$work/hostfile" \
  --command "$probe --cross-bytes 16777216" >/dev/null
[[ -f $work/meshbench.env ]] || fail "meshbench slurm wrote no env file beside the script"

started=$SECONDS
job="$(cd "$work" && "$LC/sbatch.sh" --cluster "$cname" --timeout 120 "$work/probe.sbatch")" ||
  fail "the job did not complete: $(cat "$runs/"*.out 2>/dev/null)"
job_s=$((SECONDS - started))
[[ -f $runs/train-$job.out ]] || fail "Slurm did not write the job's output to $runs/train-$job.out: $(find "$work" -name '*.out')"
out="$(cat "$runs/train-$job.out")"
echo "$out"
check_probe "$out" 2 2 1000000000
check_placement "$out" "mbn-$cname-n1" "mbn-$cname-n0" "mbn-$cname-n1" "mbn-$cname-n0"
pass "srun --distribution=arbitrary followed the hostfile"

seen="$("$LC/slurm.sh" --cluster "$cname" squeue -h -t all -j "$job" -o '%j')"
[[ $seen == "$job_name" ]] || fail "Slurm read the job name as '$seen', not '$job_name'"
[[ -z $(find "$work" -name PWNED) ]] || fail "a job name or path ran as a command"
pass "the #SBATCH job name reached Slurm verbatim; nothing was executed from it"

run_dir="$runs/train-$job"
cmp -s "$run_dir/job.env" "$work/meshbench.env" || fail "the run directory has no copy of the env file"
cmp -s "$run_dir/hostfile" "$work/hostfile" || fail "the run directory has no copy of the hostfile"
grep -q -- '--mpi=pmix' "$run_dir/steps.txt" || fail "steps.txt does not record the srun line"
grep -q '^OMPI_MCA_btl_tcp_if_include=eth0$' "$run_dir/job.env" || fail "the job did not use the local env template"
pass "run directory keeps job.env, hostfile, steps.txt"

down_and_check "$cname" "$netns_before"
rm -rf "$work"
echo "up ${up_s} s, job ${job_s} s, down ${down_s} s"
