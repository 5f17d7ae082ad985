# Sourced by the local test cluster's scripts (up.sh, down.sh, exec.sh, mpirun.sh, slurm.sh,
# env.sh): names, paths and checks shared by all of them. Not meant to be run.
#
# One cluster instance is identified by a short name. Everything it creates carries that name:
#   network namespaces  mbn-NAME-n0 .. mbn-NAME-n<N-1> (nodes), mbn-NAME-br (the bridge); in the
#                       link-bound mode mbn-NAME-nK is node K's slot 0 and mbn-NAME-nKsS its slot S
#   hostnames           the same as the node namespaces (set per process with unshare --uts)
#   state               $MBN_STATE_ROOT/NAME (configs, Slurm state/spool/logs, hostfile, agent)
# Interfaces live inside those namespaces only (eth0 in a node, br0 and v<k> in the bridge
# namespace), so two instances never collide on interface names, addresses or ports.

# shellcheck shell=bash

MBN_PREFIX="mbn"
# Kept off /tmp on purpose: every slurmd gets a private /tmp, and Slurm executes job scripts
# from its spool directory (so not on a noexec mount either).
MBN_STATE_ROOT="${MBN_STATE_ROOT:-/var/lib/meshbench/localcluster}"
MBN_SUBNET_PREFIX="10.211.0"   # node k is $MBN_SUBNET_PREFIX.$((k+1))/24, inside its namespace only
MBN_NETNS_DIR="/var/run/netns"
MBN_DEFAULT_CLUSTER="local"

mbn_die() {  # one line on stderr, then exit with status $2 (default 2: bad input / cannot run)
  printf '%s: error: %s\n' "${MBN_SCRIPT:-localcluster}" "$1" >&2
  exit "${2:-2}"
}

# Prints a script's header comment (its usage) without the '#'s.
mbn_usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$1"
}

mbn_log() {
  printf '%s: %s\n' "${MBN_SCRIPT:-localcluster}" "$*" >&2
}

# Why this machine cannot host a local cluster, or nothing when it can. $1 = 1 to include Slurm.
mbn_cannot_run_reason() {
  local want_slurm="${1:-0}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "the local test cluster needs root (network namespaces, veth, tc); run as root or use plain mpirun"
    return 0
  fi
  local tool
  for tool in ip tc nsenter unshare mpirun; do
    command -v "$tool" >/dev/null 2>&1 || { echo "'$tool' is not installed (packages: iproute2 util-linux openmpi-bin)"; return 0; }
  done
  if ! ip netns list >/dev/null 2>&1; then
    echo "'ip netns' does not work here (no network namespace support)"
    return 0
  fi
  if [[ $want_slurm == 1 ]]; then
    for tool in slurmctld slurmd sbatch srun sinfo; do
      command -v "$tool" >/dev/null 2>&1 || { echo "'$tool' is not installed (packages: slurmctld slurmd slurm-client libpmix-dev)"; return 0; }
    done
  fi
  return 0
}

mbn_require_root() {
  [[ $(id -u) -eq 0 ]] || mbn_die "the local test cluster needs root (network namespaces, veth, tc); run as root or use plain mpirun" 2
}

mbn_validate_name() {
  [[ $1 =~ ^[a-z][a-z0-9]{0,15}$ ]] ||
    mbn_die "cluster name '$1' is not valid: use 1-16 lowercase letters and digits, starting with a letter" 2
}

mbn_validate_state_root() {
  # Slurm's config file and Open MPI's plm_rsh_agent value split on whitespace.
  [[ $MBN_STATE_ROOT == /* && $MBN_STATE_ROOT != *[[:space:]]* ]] ||
    mbn_die "MBN_STATE_ROOT must be an absolute path without whitespace (got '$MBN_STATE_ROOT')" 2
  case "$MBN_STATE_ROOT/" in
    /tmp/* | /var/tmp/*) mbn_die "MBN_STATE_ROOT must not be under /tmp: each slurmd gets a private /tmp" 2 ;;
  esac
}

mbn_state_dir() { printf '%s/%s' "$MBN_STATE_ROOT" "$1"; }
mbn_node_ns() { printf '%s-%s-n%d' "$MBN_PREFIX" "$1" "$2"; }
mbn_bridge_ns() { printf '%s-%s-br' "$MBN_PREFIX" "$1"; }
mbn_node_addr() { printf '%s.%d' "$MBN_SUBNET_PREFIX" "$(($1 + 1))"; }

# The namespaces of cluster $1 that exist now, one per line.
mbn_existing_namespaces() {
  local name="$1"
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${MBN_PREFIX}-${name}-(n[0-9]+(s[0-9]+)?|br)\$" || true
}

# Clusters that are up (have a state directory or a namespace), one name per line.
mbn_list_clusters() {
  {
    if [[ -d $MBN_STATE_ROOT ]]; then
      find "$MBN_STATE_ROOT" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null
    fi
    ip netns list 2>/dev/null | awk '{print $1}' | sed -nE "s/^${MBN_PREFIX}-([a-z][a-z0-9]*)-(n[0-9]+(s[0-9]+)?|br)\$/\\1/p"
  } | sort -u
}

# Which cluster a helper talks to: --cluster NAME, else $MBN_CLUSTER, else the only one that is
# up, else the default name.
mbn_resolve_cluster() {
  local given="${1:-}"
  if [[ -n $given ]]; then printf '%s' "$given"; return; fi
  if [[ -n ${MBN_CLUSTER:-} ]]; then printf '%s' "$MBN_CLUSTER"; return; fi
  local up
  up="$(mbn_list_clusters)"
  if [[ -n $up && $(wc -l <<<"$up") -eq 1 ]]; then printf '%s' "$up"; return; fi
  printf '%s' "$MBN_DEFAULT_CLUSTER"
}

# Loads cluster $1's recorded settings (MBN_NODES, MBN_SLOTS, ...) into the caller.
mbn_load_cluster() {
  local name="$1" state
  mbn_validate_name "$name"
  state="$(mbn_state_dir "$name")"
  [[ -r $state/cluster.env ]] ||
    mbn_die "local cluster '$name' is not up (no $state/cluster.env); start it with slurm/localcluster/up.sh N --cluster $name" 2
  # shellcheck source=/dev/null
  source "$state/cluster.env"
}

# The helpers' common start: root, then cluster $1 (or the default one, see above) loaded;
# MBN_CLUSTER names it afterwards. MESHBENCH_LINK_RATES names the cluster's link rate file, so
# every process the helper starts (mpirun's ranks, a job's steps) reads the shaped rates.
mbn_use_cluster() {
  mbn_require_root
  mbn_load_cluster "$(mbn_resolve_cluster "${1:-}")"
  mbn_export_link_rates
}

# Exports MESHBENCH_LINK_RATES for the loaded cluster (clusters brought up before up.sh wrote the
# file have none: then the variable is left alone).
mbn_export_link_rates() {
  if [[ -n ${MBN_LINK_RATES:-} && -r $MBN_LINK_RATES ]]; then export MESHBENCH_LINK_RATES="$MBN_LINK_RATES"; fi
}

# Runs "$@" inside node $2's network namespace of cluster $1 with the node's hostname, and with
# an /etc/hosts that also names the cluster's nodes (so node names resolve, as on a real
# cluster). The UTS and mount namespaces are new each time and private: nothing changes on the
# root namespace. nsenter rather than `ip netns exec`, which remounts /sys.
mbn_in_node() {
  local name="$1" node="$2"
  shift 2
  local ns hosts
  ns="$(mbn_node_ns "$name" "$node")"
  hosts="$(mbn_state_dir "$name")/etc/hosts"
  # shellcheck disable=SC2016  # $0 and $1 belong to the inner shell
  nsenter --net="$MBN_NETNS_DIR/$ns" -- unshare --uts --mount --propagation private -- /bin/sh -c \
    'hostname "$0" && { [ ! -f "$1" ] || mount --bind "$1" /etc/hosts; } && shift && exec "$@"' "$ns" "$hosts" "$@"
}

# Node index of $2 in cluster $1: accepts an index, a node name (mbn-NAME-nK) or an address.
mbn_node_index() {
  local name="$1" node="$2" k
  if [[ $node =~ ^[0-9]+$ ]]; then k="$node"
  elif [[ $node =~ ^${MBN_PREFIX}-${name}-n([0-9]+)$ ]]; then k="${BASH_REMATCH[1]}"
  elif [[ $node =~ ^${MBN_SUBNET_PREFIX//./\\.}\.([0-9]+)$ ]]; then k="$((BASH_REMATCH[1] - 1))"
  else mbn_die "unknown node '$node' (use an index 0..$((MBN_NODES - 1)), a node name or an address)" 2
  fi
  ((k >= 0 && k < MBN_NODES)) || mbn_die "node '$node' is not in cluster '$name' (it has $MBN_NODES nodes)" 2
  printf '%d' "$k"
}
