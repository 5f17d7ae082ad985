#!/usr/bin/env bash
# Runs a Slurm client command (sbatch, srun, squeue, sinfo, scontrol, scancel, ...) against the
# local test cluster's controller, from node 0 (the head node: the controller's address is
# reachable only inside the cluster's network).
#
#   slurm.sh [--cluster NAME] COMMAND [ARGS...]
#   e.g. slurm/localcluster/slurm.sh sbatch --wait job.sbatch
#
# SLURM_CONF points at the cluster's config; the rest of the environment passes through (and
# into the job, as sbatch exports it). Job scripts, binaries and output must not be under /tmp:
# every node has a private /tmp. The exit status is the command's (sbatch --wait: the job's).
set -euo pipefail

# shellcheck disable=SC2034  # read by common.sh

MBN_SCRIPT="slurm.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$here/common.sh"

cluster=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) mbn_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[[ $# -gt 0 ]] || mbn_die "usage: slurm.sh [--cluster NAME] COMMAND [ARGS...]" 2
mbn_use_cluster "$cluster"
[[ $MBN_SLURM == 1 ]] || mbn_die "local cluster '$MBN_CLUSTER' runs without Slurm; bring it up with up.sh N --slurm" 2
export SLURM_CONF="$MBN_SLURM_CONF"
mbn_in_node "$MBN_CLUSTER" 0 "$@"
