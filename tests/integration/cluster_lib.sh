# Sourced by the local test cluster's tests (cluster_*_test.sh): skipping, checking the probe's
# output, and asserting that a cluster left nothing behind.
# shellcheck shell=bash

LC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../slurm/localcluster" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$LC/common.sh"

skip() { echo "SKIP: $*"; exit 77; }   # CTest SKIP_RETURN_CODE
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# Skips unless this machine can host a local cluster ($1 = 1: with Slurm).
require_cluster_host() {
  local reason args=(--can-run)
  [[ ${1:-0} != 1 ]] || args+=(--slurm)
  reason="$("$LC/up.sh" "${args[@]}")" || skip "$reason"
}

# Whether /run/netns is a mount point now (down.sh must restore what it found).
netns_mount_state() { if mountpoint -q "$MBN_NETNS_DIR" 2>/dev/null; then echo 1; else echo 0; fi; }

# Checks cluster_probe's output ($1) for $2 nodes x $3 slots behind links shaped to $4 bit/s:
# distinct hostnames with $3 ranks each, a cross-node rate at most the shaped rate and more than
# half of it, an intra-node rate at least 4 times the cross-node one (shared memory is not
# shaped; 4x rather than the 10-30x seen on an idle machine, because the cores are shared).
check_probe() {
  local out="$1" nodes="$2" slots="$3" rate_bps="$4"
  grep -q '^probe ok$' <<<"$out" || fail "probe did not finish: $out"
  local hosts
  hosts="$(sed -n 's/^rank=[0-9]* host=\([^ ]*\) .*/\1/p' <<<"$out" | sort | uniq -c | awk '{print $1}' | sort -u | paste -sd,)"
  local n_hosts
  n_hosts="$(sed -n 's/^rank=[0-9]* host=\([^ ]*\) .*/\1/p' <<<"$out" | sort -u | wc -l)"
  [[ $n_hosts -eq $nodes ]] || fail "expected $nodes distinct hostnames, got $n_hosts: $out"
  [[ $hosts == "$slots" ]] || fail "expected $slots ranks on every host, got counts '$hosts': $out"
  local cross intra
  cross="$(sed -n 's/^bw kind=cross .* MBps=\([0-9.]*\) .*/\1/p' <<<"$out")"
  intra="$(sed -n 's/^bw kind=intra .* MBps=\([0-9.]*\) .*/\1/p' <<<"$out")"
  [[ -n $cross && -n $intra ]] || fail "probe printed no cross-node or intra-node rate: $out"
  awk -v c="$cross" -v r="$rate_bps" 'BEGIN { exit !(c * 8e6 <= r) }' ||
    fail "cross-node rate $cross MB/s exceeds the shaped rate $((rate_bps / 8000000)) MB/s: shaping is not in effect"
  awk -v c="$cross" -v r="$rate_bps" 'BEGIN { exit !(c * 8e6 > 0.5 * r) }' ||
    fail "cross-node rate $cross MB/s is under half the shaped rate $((rate_bps / 8000000)) MB/s"
  awk -v c="$cross" -v i="$intra" 'BEGIN { exit !(i >= 4 * c) }' ||
    fail "intra-node rate $intra MB/s is not much faster than cross-node $cross MB/s: ranks of a node are not using shared memory"
  pass "$nodes hosts x $slots ranks; cross-node $cross MB/s (shaped to $((rate_bps / 8000000)) MB/s), intra-node $intra MB/s"
}

# Checks that probe output $1 put rank i on host ${i+2}: check_placement "$out" h0 h1 ...
check_placement() {
  local out="$1" r=0 host
  shift
  for host in "$@"; do
    grep -q "^rank=$r host=$host " <<<"$out" || fail "rank $r is not on $host: $out"
    r=$((r + 1))
  done
}

# The processes in cluster $1's namespaces now, one "pid start-time" per line (the start time
# tells a pid that was reused apart from the process).
cluster_processes() {
  local ns pid stat
  for ns in $(mbn_existing_namespaces "$1"); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
      stat="${stat##*) }"
      # shellcheck disable=SC2086  # split into fields on purpose
      set -- $stat
      echo "$pid ${20}"
    done
  done
}

# Runs down.sh for cluster $1 and asserts that, the moment it returns, none of the processes that
# were in its namespaces exists any more: not running, not exiting, not a zombie (pgrep would
# list any of them), and that pgrep finds no daemon of the cluster. Sets down_s (the seconds
# down.sh took).
down_and_assert_gone() {
  local name="$1" before t pid start now left=""
  before="$(cluster_processes "$name")"
  t=$SECONDS
  "$LC/down.sh" --cluster "$name" --quiet
  # shellcheck disable=SC2034  # for the caller's summary line
  down_s=$((SECONDS - t))
  while read -r pid start; do
    [[ -n $pid ]] || continue
    now="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
    now="${now##*) }"
    # shellcheck disable=SC2086  # split into fields on purpose
    set -- $now
    [[ ${20} != "$start" ]] || left+=" $pid ($1 $(ps -o comm= -p "$pid" 2>/dev/null || true))"
  done <<<"$before"
  [[ -z $left ]] || fail "processes of '$name' still there when down.sh returned:$left"
  local daemons
  daemons="$(pgrep -a -f -- "(slurmd|slurmctld) .*${MBN_PREFIX}-${name}-|$(mbn_state_dir "$name")/" || true)"
  [[ -z $daemons ]] || fail "pgrep finds processes of '$name' right after down.sh returned: $daemons"
  pass "down.sh of '$name' returned after all $(grep -c . <<<"$before") of its processes had exited"
}

# Tears cluster $1 down (the seconds it took in down_s), drops the EXIT trap that would have
# done it, and asserts that nothing is left ($2: /run/netns's mount state before).
down_and_check() {
  down_and_assert_gone "$1"
  trap - EXIT
  assert_clean "$1" "$2"
}

# Asserts that cluster $1 left nothing behind: no namespace, bridge or veth, no process (daemon,
# step, rank) in or about it, no mount, no state directory; /run/netns as it was ($2: 0/1).
assert_clean() {
  local name="$1" netns_before="$2" state ns
  state="$(mbn_state_dir "$name")"
  ns="$(mbn_existing_namespaces "$name")"
  [[ -z $ns ]] || fail "namespaces left: $ns"
  [[ ! -e $MBN_NETNS_DIR/$(mbn_bridge_ns "$name") ]] || fail "bridge namespace file left"
  # Nothing of ours on the root namespace either (up.sh never puts anything there).
  if ip -o link show | grep -E "${MBN_PREFIX}-${name}-|br0|veth" >/dev/null; then
    fail "interfaces left on the root namespace: $(ip -o link show | grep -E "${MBN_PREFIX}-${name}-|br0|veth")"
  fi
  [[ ! -e $state ]] || fail "state directory left: $state"
  # Live processes (zombies are gone in all but name) whose command line names our state.
  local pid cmd left=""
  for pid in /proc/[0-9]*; do
    [[ -r $pid/cmdline ]] || continue
    [[ $(awk '{print $3}' "$pid/stat" 2>/dev/null) != Z ]] || continue
    cmd="$(tr '\0' ' ' <"$pid/cmdline" 2>/dev/null || true)"
    # "$state/": the state of a cluster whose name starts with this one's is not ours.
    if [[ $cmd == *"$state/"* || $cmd == *"${MBN_PREFIX}-${name}-"* ]]; then left+="${pid#/proc/}: $cmd; "; fi
  done
  [[ -z $left ]] || fail "processes left: $left"
  if grep -E "$state/|${MBN_PREFIX}-${name}-|mbn-tmp" /proc/self/mountinfo >/dev/null; then
    fail "mounts left: $(grep -E "$state/|${MBN_PREFIX}-${name}-|mbn-tmp" /proc/self/mountinfo)"
  fi
  [[ $(netns_mount_state) == "$netns_before" ]] || fail "/run/netns mount state changed ($netns_before -> $(netns_mount_state))"
  pass "cluster '$name' left nothing behind"
}
