#!/usr/bin/env bash
# Submits a batch job to the local test cluster and waits until it has ended.
#
#   sbatch.sh [--cluster NAME] [--timeout SECONDS] [SBATCH OPTIONS...] SCRIPT [ARGS...]
#
# Prints the job id on stdout, and the job's final state and exit code on stderr. Exit status:
# 0 when the job COMPLETED, 1 when it ended otherwise (FAILED, CANCELLED, TIMEOUT, ...) or did
# not end within --timeout (default 600 s; then it is cancelled), 2 for bad input. Polls every
# half second (sbatch --wait polls every few seconds and would make short test jobs slow).
# The script, its binaries and its output must not be under /tmp: every node has its own /tmp.
set -euo pipefail

# shellcheck disable=SC2034  # read by common.sh
MBN_SCRIPT="sbatch.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$here/common.sh"

cluster=""
timeout_s=600
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) mbn_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift 2 ;;
    --timeout) timeout_s="${2:?--timeout needs seconds}"; shift 2 ;;
    *) break ;;
  esac
done
[[ $# -gt 0 ]] || mbn_die "usage: sbatch.sh [--cluster NAME] [--timeout SECONDS] [SBATCH OPTIONS...] SCRIPT [ARGS...]" 2
[[ $timeout_s =~ ^[0-9]+$ ]] || mbn_die "--timeout must be whole seconds (got '$timeout_s')" 2
mbn_use_cluster "$cluster"
[[ $MBN_SLURM == 1 ]] || mbn_die "local cluster '$MBN_CLUSTER' runs without Slurm; bring it up with up.sh N --slurm" 2
export SLURM_CONF="$MBN_SLURM_CONF"

submitted="$(mbn_in_node "$MBN_CLUSTER" 0 sbatch --parsable "$@")" || mbn_die "sbatch refused the job" 1
job="${submitted%%;*}"
[[ $job =~ ^[0-9]+$ ]] || mbn_die "sbatch printed '$submitted', not a job id" 1
printf '%s\n' "$job"

deadline=$((SECONDS + timeout_s))
while :; do
  info="$(mbn_in_node "$MBN_CLUSTER" 0 scontrol -o show job "$job" 2>/dev/null || true)"
  state="$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$info")"
  case "$state" in
    "" | PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | REQUEUED | RESIZING | SIGNALING | STAGE_OUT) ;;
    *) break ;;
  esac
  if ((SECONDS >= deadline)); then
    mbn_in_node "$MBN_CLUSTER" 0 scancel "$job" || true
    mbn_die "job $job did not end within $timeout_s s (state ${state:-unknown}); cancelled it. Logs: $MBN_STATE/log" 1
  fi
  sleep 0.5
done
exit_code="$(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<<"$info")"
mbn_log "job $job $state (exit code ${exit_code:-?})"
[[ $state == COMPLETED ]]
