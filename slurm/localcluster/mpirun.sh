#!/usr/bin/env bash
# Runs an MPI program across the nodes of the local test cluster with Open MPI's mpirun.
#
#   mpirun.sh [--cluster NAME] [MPIRUN OPTIONS...] -- COMMAND [ARGS...]
#   e.g. slurm/localcluster/mpirun.sh -np 4 -- build/meshbench run --out r.h5 ...
#
# mpirun itself runs in node 0's namespace; the hostfile lists the nodes by address with their
# slots (so -np defaults to all slots, filled node by node; pass --hostfile "$MBN_HOSTFILE_NAMES"
# to list them by name, e.g. for a rankfile); remote daemons start through the
# namespace launch agent; TCP traffic stays on the nodes' shaped eth0. Ranks on one node talk
# through shared memory. Runs as root with Open MPI's root override set; OMPI_MCA_* variables
# already in the environment win over the defaults set here. The exit status is mpirun's.
set -euo pipefail

# shellcheck disable=SC2034  # read by common.sh

MBN_SCRIPT="mpirun.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$here/common.sh"

cluster=""
opts=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) mbn_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift 2 ;;
    --) shift; break ;;
    *) opts+=("$1"); shift ;;
  esac
done
[[ $# -gt 0 ]] || mbn_die "usage: mpirun.sh [--cluster NAME] [MPIRUN OPTIONS...] -- COMMAND [ARGS...]" 2
mbn_use_cluster "$cluster"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Ranks outnumber the cores here: yield when idle, and no binding (every node's ranks would be
# bound to the same few cores of this one machine).
export OMPI_MCA_mpi_yield_when_idle="${OMPI_MCA_mpi_yield_when_idle:-1}"
export OMPI_MCA_hwloc_base_binding_policy="${OMPI_MCA_hwloc_base_binding_policy:-none}"
# ob1 with shared memory inside a node and TCP between nodes, only over the shaped eth0; in
# the link-bound mode TCP between every pair, through the emulated links.
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
if [[ ${MBN_LINK_BOUND:-0} == 1 ]]; then
  export OMPI_MCA_btl="${OMPI_MCA_btl:-self,tcp}"
  # meshbench's ranks sleep while they wait, so that 8 ranks on 2 cores leave the cores to the
  # ones whose data arrived (bench/mpi_wait.hpp).
  export MESHBENCH_MPI_WAIT_SLEEP_US="${MESHBENCH_MPI_WAIT_SLEEP_US:-50}"
else
  export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader,tcp}"
fi
export OMPI_MCA_btl_tcp_if_include="${OMPI_MCA_btl_tcp_if_include:-eth0}"
export OMPI_MCA_oob_tcp_if_include="${OMPI_MCA_oob_tcp_if_include:-eth0}"
export OMPI_MCA_plm_rsh_agent="$MBN_STATE/bin/rsh-agent"
export OMPI_MCA_plm_rsh_no_tree_spawn=1
export OMPI_MCA_rmaps_base_oversubscribe="${OMPI_MCA_rmaps_base_oversubscribe:-1}"

# The cluster's hostfile unless the caller brings one (e.g. $MBN_HOSTFILE_NAMES for a rankfile
# that names hosts).
hostfile=(--hostfile "$MBN_HOSTFILE")
for o in "${opts[@]}"; do
  case "$o" in --hostfile | -hostfile | --machinefile | -machinefile | --default-hostfile) hostfile=() ;; esac
done
mbn_in_node "$MBN_CLUSTER" 0 mpirun "${hostfile[@]}" "${opts[@]}" "$@"
