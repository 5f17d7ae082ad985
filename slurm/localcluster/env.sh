# The local test cluster's settings for a caller's shell, and short functions around the
# helper scripts. Two ways to use it:
#
#   source slurm/localcluster/env.sh [NAME]     exports MBN_* (and SLURM_CONF when the cluster
#                                               runs Slurm) and defines the functions below
#   eval "$(slurm/localcluster/env.sh [NAME])"  the same variables, printed as export lines
#
# MBN_CLUSTER MBN_STATE MBN_NODES MBN_SLOTS MBN_RATE MBN_RATE_BPS (0 when unshaped)
# MBN_NODE_RATES MBN_NODE_RATES_BPS (each node's rate, node 0 first, space-separated)
# MBN_HOSTFILE (nodes by address) MBN_HOSTFILE_NAMES (by name) MBN_SLURM (0/1) MBN_SLURM_CONF MBN_NODE_NAMES; MBN_LINK_BOUND (0/1); MBN_LOCALCLUSTER (this folder).
# MBN_LINK_RATES and MESHBENCH_LINK_RATES: the link rate file (host, interface, bit/s per line),
# which meshbench's live discovery reads for the emulated NICs' line rate.
# Functions: mbn_mpirun [MPIRUN OPTIONS] -- CMD...; mbn_exec NODE -- CMD...; mbn_slurm CMD...
# (sbatch, srun, sinfo, ...); mbn_down. NAME defaults as in the scripts: $MBN_CLUSTER, else the
# only cluster that is up, else "local".
# shellcheck shell=bash

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  # Executed: print the variables.
  set -euo pipefail
  # shellcheck disable=SC2034  # read by common.sh
  MBN_SCRIPT="env.sh"
  MBN_LOCALCLUSTER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  # shellcheck source=slurm/localcluster/common.sh
  source "$MBN_LOCALCLUSTER/common.sh"
  mbn_load_cluster "$(mbn_resolve_cluster "${1:-}")"
  mbn_export_link_rates
  [[ -z ${MESHBENCH_LINK_RATES:-} ]] || printf 'export MBN_LINK_RATES=%q MESHBENCH_LINK_RATES=%q\n' "$MBN_LINK_RATES" "$MESHBENCH_LINK_RATES"
  MBN_LINK_BOUND="${MBN_LINK_BOUND:-0}"
  for v in MBN_CLUSTER MBN_STATE MBN_NODES MBN_SLOTS MBN_RATE MBN_RATE_BPS MBN_NODE_RATES MBN_NODE_RATES_BPS MBN_HOSTFILE MBN_HOSTFILE_NAMES MBN_SLURM MBN_SLURM_CONF MBN_NODE_NAMES MBN_LINK_BOUND MBN_LOCALCLUSTER; do
    printf 'export %s=%q\n' "$v" "${!v}"
  done
  [[ $MBN_SLURM != 1 ]] || printf 'export SLURM_CONF=%q\n' "$MBN_SLURM_CONF"
  exit 0
fi

# Sourced: run the printing half in a subshell so a missing cluster cannot exit the caller.
if __mbn_env="$(bash "${BASH_SOURCE[0]}" "${1:-}")"; then
  eval "$__mbn_env"
  unset __mbn_env
  mbn_mpirun() { "$MBN_LOCALCLUSTER/mpirun.sh" --cluster "$MBN_CLUSTER" "$@"; }
  mbn_exec() { "$MBN_LOCALCLUSTER/exec.sh" --cluster "$MBN_CLUSTER" "$@"; }
  mbn_slurm() { "$MBN_LOCALCLUSTER/slurm.sh" --cluster "$MBN_CLUSTER" "$@"; }
  mbn_down() { "$MBN_LOCALCLUSTER/down.sh" --cluster "$MBN_CLUSTER" "$@"; }
else
  unset __mbn_env
  return 2
fi
