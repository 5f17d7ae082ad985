#!/usr/bin/env bash
# Runs a command on one node of the local test cluster: in the node's network namespace, with
# the node's hostname.
#
#   exec.sh [--cluster NAME] NODE -- COMMAND [ARGS...]
#
# NODE is an index (0..N-1), a node name (mbn-NAME-nK) or its address. The command's exit
# status is exec.sh's. The environment is passed through unchanged.
set -euo pipefail

# shellcheck disable=SC2034  # read by common.sh

MBN_SCRIPT="exec.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$here/common.sh"

cluster=""
node=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) mbn_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift 2 ;;
    --) shift; break ;;
    -*) mbn_die "unknown option '$1'; see exec.sh --help" 2 ;;
    *) [[ -z $node ]] || mbn_die "expected '--' before the command; see exec.sh --help" 2; node="$1"; shift ;;
  esac
done
[[ -n $node && $# -gt 0 ]] || mbn_die "usage: exec.sh [--cluster NAME] NODE -- COMMAND [ARGS...]" 2
mbn_use_cluster "$cluster"
k="$(mbn_node_index "$MBN_CLUSTER" "$node")"
mbn_in_node "$MBN_CLUSTER" "$k" "$@"
