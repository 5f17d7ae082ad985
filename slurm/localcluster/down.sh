#!/usr/bin/env bash
# Tears the local test cluster down: every process in its namespaces (slurmctld, slurmd, job
# steps, orted, ranks; down.sh returns only once each one has exited), the namespaces with their veths and bridge, the private /tmp mounts
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

# A process's start time (clock ticks since boot; field 22 of /proc/PID/stat, counted after the
# command name, which may hold spaces): with the pid it names one process, not a reused pid.
start_time() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  # shellcheck disable=SC2086  # split into fields on purpose
  set -- $stat
  printf '%s' "${20}"
}

# The processes down.sh has seen in the namespaces: pid -> start time. A process that is
# exiting has already left its namespaces (`ip netns pids` no longer lists it) but still exists
# and still shows in ps/pgrep, closing its files, until its parent reaps it; so down.sh waits
# for the processes themselves, not for the namespaces to look empty.
declare -A seen=()
track() {
  local pid t
  for pid in $(pids_in "$@"); do
    [[ -n ${seen[$pid]:-} ]] && continue
    t="$(start_time "$pid")" && seen[$pid]="$t"
  done
}

# The seen processes that still exist (running, exiting or not yet reaped), one pid per line.
still_there() {
  local pid
  for pid in "${!seen[@]}"; do
    [[ $(start_time "$pid" 2>/dev/null) == "${seen[$pid]}" ]] && printf '%s\n' "$pid"
  done
  return 0
}

# Signals $1 to what is still there and waits up to $2 seconds for it to be gone, signalling
# newcomers (a slurmd forking a step while it stops) too. Status 0 when nothing is left.
signal_and_wait() {
  local sig="$1" deadline=$((SECONDS + $2)) pids
  shift 2
  track "$@"
  mapfile -t pids < <(still_there)
  [[ ${#pids[@]} -gt 0 ]] || return 0
  kill "-$sig" "${pids[@]}" 2>/dev/null || true
  while ((SECONDS < deadline)); do
    sleep 0.1
    local before=${#seen[@]}
    track "$@"
    mapfile -t pids < <(still_there)
    [[ ${#pids[@]} -gt 0 ]] || return 0
    ((${#seen[@]} == before)) || kill "-$sig" "${pids[@]}" 2>/dev/null || true
  done
  return 1
}

# Stops every process in the namespaces and returns once all of them are gone: SIGTERM and up
# to 10 s, then SIGKILL for the survivors and up to 5 s. Status 1, naming them, if any is left.
stop_processes() {
  track "$@"
  [[ ${#seen[@]} -gt 0 ]] || return 0
  say "stopping ${#seen[@]} process(es) in the cluster's namespaces"
  signal_and_wait TERM 10 "$@" && return 0
  say "killing $(still_there | wc -l) process(es) that outlived SIGTERM by 10 s"
  signal_and_wait KILL 5 "$@" && return 0
  local pid left=""
  for pid in $(still_there); do
    left+=" $pid ($(ps -o stat=,comm= -p "$pid" 2>/dev/null | tr -s ' ' || true))"
  done
  mbn_log "processes still there 5 s after SIGKILL:$left"
  return 1
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

# The link-bound mode's emulator runs on the root namespace: stop it by its pid file, when that
# pid is still the emulator (its ports, and so the slots' eth0, go with it).
stop_link_emulator() {
  local pidfile="$1/linkemu.pid" pid i
  [[ -s $pidfile ]] || return 0
  pid="$(cat "$pidfile")"
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == meshbench-linke* ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
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

  if [[ ${#namespaces[@]} -gt 0 ]]; then stop_processes "${namespaces[@]}" || failed=1; fi
  stop_link_emulator "$state"
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
