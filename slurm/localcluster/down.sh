#!/usr/bin/env bash
# Tears the local test cluster down: every process in its namespaces (slurmctld, slurmd, job
# steps, orted, ranks), the namespaces with their veths and bridge, the private /tmp mounts
# (they live in the slurmds' mount namespaces and go with them), and the state directory.
#
#   down.sh [--cluster NAME | --all] [--keep-logs DIR] [--quiet]
#
# Safe to run twice, after a failed up.sh, or for a cluster that was never up (exit 0). Exits 1
# if something could not be removed, naming it. --keep-logs copies the Slurm logs to DIR first.
set -euo pipefail

# shellcheck disable=SC2034  # read by common.sh

MBN_SCRIPT="down.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$here/common.sh"

cluster=""
all=0
quiet=0
keep_logs=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) mbn_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift 2 ;;
    --all) all=1; shift ;;
    --keep-logs) keep_logs="${2?--keep-logs needs a directory}"; shift 2 ;;
    --quiet) quiet=1; shift ;;
    *) mbn_die "unknown argument '$1'; see down.sh --help" 2 ;;
  esac
done
mbn_require_root
mbn_validate_state_root
say() { [[ $quiet == 1 ]] || mbn_log "$@"; }

# Every process whose network namespace is one of ours, listed by pid.
pids_in() {
  local ns
  for ns in "$@"; do ip netns pids "$ns" 2>/dev/null || true; done | sort -un
}

stop_processes() {
  local pids
  mapfile -t pids < <(pids_in "$@")
  [[ ${#pids[@]} -gt 0 ]] || return 0
  say "stopping ${#pids[@]} process(es) in the cluster's namespaces"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  local deadline=$((SECONDS + 10))
  while ((SECONDS < deadline)); do
    mapfile -t pids < <(pids_in "$@")
    [[ ${#pids[@]} -gt 0 ]] || return 0
    sleep 0.2
  done
  say "killing ${#pids[@]} process(es) that ignored SIGTERM"
  kill -KILL "${pids[@]}" 2>/dev/null || true
  deadline=$((SECONDS + 5))
  while ((SECONDS < deadline)); do
    mapfile -t pids < <(pids_in "$@")
    [[ ${#pids[@]} -gt 0 ]] || return 0
    sleep 0.2
  done
}

# What the clusters share: the state root (and, for the default, /var/lib/meshbench), and
# /run/netns's mount when a cluster's up.sh created it (.netns-mount-created). The last cluster
# to go removes them; umount refuses while anybody's namespace is still mounted below.
release_shared() {
  [[ -d $MBN_STATE_ROOT ]] || return 0
  if [[ -n $(find "$MBN_STATE_ROOT" -mindepth 1 -maxdepth 1 -type d) ]]; then return 0; fi
  local marker="$MBN_STATE_ROOT/.netns-mount-created"
  if [[ -e $marker ]]; then
    if mountpoint -q "$MBN_NETNS_DIR" && [[ -z $(ls -A "$MBN_NETNS_DIR" 2>/dev/null) ]]; then
      umount "$MBN_NETNS_DIR" 2>/dev/null || true
    fi
    rm -f "$marker"
  fi
  rmdir "$MBN_STATE_ROOT" 2>/dev/null || true
  [[ $MBN_STATE_ROOT != /var/lib/meshbench/localcluster ]] || rmdir /var/lib/meshbench 2>/dev/null || true
}

down_one() {
  local name="$1" state namespaces failed=0
  state="$(mbn_state_dir "$name")"
  mapfile -t namespaces < <(mbn_existing_namespaces "$name")
  if [[ ${#namespaces[@]} -eq 0 && ! -e $state ]]; then
    say "local cluster '$name' is not up; nothing to do"
    release_shared
    return 0
  fi

  [[ ${#namespaces[@]} -eq 0 ]] || stop_processes "${namespaces[@]}"
  local ns
  for ns in "${namespaces[@]}"; do
    # Deleting a node namespace destroys its veth pair; deleting the bridge's, the bridge.
    ip netns del "$ns" 2>/dev/null || { mbn_log "could not delete network namespace $ns"; failed=1; }
  done

  if [[ -n $keep_logs && -d $state/log ]]; then
    mkdir -p "$keep_logs/$name"
    cp -r "$state/log/." "$keep_logs/$name/" 2>/dev/null || true
    if [[ -f $state/etc/slurm.conf ]]; then cp "$state/etc/slurm.conf" "$keep_logs/$name/" 2>/dev/null || true; fi
  fi
  if [[ -e $state ]]; then
    rm -rf --one-file-system -- "$state" || { mbn_log "could not remove $state"; failed=1; }
  fi
  release_shared
  # What must be gone now.
  local left
  left="$(mbn_existing_namespaces "$name")"
  [[ -z $left ]] || { mbn_log "namespaces left: $(tr '\n' ' ' <<<"$left")"; failed=1; }
  [[ ! -e $state ]] || { mbn_log "state directory left: $state"; failed=1; }
  if [[ $failed == 0 ]]; then
    say "local cluster '$name' is down"
  fi
  return "$failed"
}

started=$SECONDS
status=0
if [[ $all == 1 ]]; then
  mapfile -t clusters < <(mbn_list_clusters)
  [[ ${#clusters[@]} -gt 0 ]] || say "no local cluster is up"
  for c in "${clusters[@]}"; do
    if [[ ! $c =~ ^[a-z][a-z0-9]{0,15}$ ]]; then mbn_log "skipping '$MBN_STATE_ROOT/$c': not a cluster name"; continue; fi
    down_one "$c" || status=1
  done
else
  cluster="$(mbn_resolve_cluster "$cluster")"
  mbn_validate_name "$cluster"
  down_one "$cluster" || status=1
fi
say "done in $((SECONDS - started)) s"
exit "$status"
