#!/usr/bin/env bash
# Open MPI's launch agent for the local test cluster (mpirun --mca plm_rsh_agent). mpirun calls
# it like ssh: "rsh-agent [options] HOST COMMAND WORDS...". HOST is a node address from the
# hostfile (or a node name); the agent runs the command in that node's network namespace with
# the node's hostname, through a shell as ssh would. up.sh installs a copy as
# $MBN_STATE/bin/rsh-agent, beside the node table it reads ($MBN_STATE/nodes).
set -euo pipefail

state="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
while [[ $# -gt 0 && $1 == -* ]]; do shift; done   # ssh options Open MPI may pass (e.g. -x)
[[ $# -ge 2 ]] || { echo "rsh-agent: usage: rsh-agent HOST COMMAND..." >&2; exit 2; }
host="$1"
shift
# A link-bound cluster lists every slot (namespace, address, its node's hostname) in "slots".
table="$state/nodes"
[[ ! -s $state/slots ]] || table="$state/slots"
read -r ns name < <(awk -v h="$host" '$2 == h || $3 == h { print $2, ($4 != "" ? $4 : $2); exit }' "$table") || true
[[ -n ${ns:-} ]] || { echo "rsh-agent: '$host' is not a node of this local cluster ($table)" >&2; exit 255; }
if [[ $table == "$state/slots" ]]; then
  # The slots of one emulated node share its hostname, and Open MPI names its session directory
  # after the hostname: two daemons of one node in one directory collided ("mkdir: File exists",
  # a crash writing hwloc's shared topology there), and mpirun waited for ever for the daemon
  # that had died. Each slot gets a directory of its own.
  mkdir -p "$state/tmp/$ns"
  export OMPI_MCA_orte_tmpdir_base="$state/tmp/$ns"
fi
# shellcheck disable=SC2016  # $0 and $1 belong to the inner shell
exec nsenter --net="/var/run/netns/$ns" -- unshare --uts -- /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$name" "$*"
