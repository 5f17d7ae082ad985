#!/usr/bin/env bash
# Local test cluster, (a): 2 nodes x 2 slots behind 1 Gbit/s links; mpirun across the
# namespaces runs 4 ranks of cluster_probe. Asserts 2 hostnames with 2 ranks each in hostfile
# order, a cross-node rate within the shaping, a much faster intra-node rate, a placement by
# rankfile, the exec.sh and env.sh helpers, a node with a slower link of its own (--node-rate),
# and that down.sh leaves nothing behind.
#   cluster_mpirun_test.sh PROBE NAME WORKDIR
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
probe="$1"
cname="$2"
work="$3/cluster-mpirun-$cname"
require_cluster_host 0
netns_before="$(netns_mount_state)"

trap '"$LC/down.sh" --cluster "$cname" --quiet || true' EXIT
rm -rf "$work"
mkdir -p "$work"
started=$SECONDS
"$LC/up.sh" 2 --slots 2 --rate 1gbit --cluster "$cname" >/dev/null
up_s=$((SECONDS - started))

out="$("$LC/mpirun.sh" --cluster "$cname" -np 4 -- "$probe")" || fail "mpirun across the namespaces failed: $out"
echo "$out"
check_probe "$out" 2 2 1000000000
# By slot, node by node, in hostfile order: ranks 0,1 on node 0 and 2,3 on node 1.
n0="mbn-$cname-n0"
n1="mbn-$cname-n1"
check_placement "$out" "$n0" "$n0" "$n1" "$n1"
pass "ranks placed node by node in hostfile order"

# A placement by rankfile, as a mapping exports it (host names: the names hostfile).
printf 'rank 0=%s slot=0\nrank 1=%s slot=0\nrank 2=%s slot=1\nrank 3=%s slot=1\n' "$n1" "$n0" "$n1" "$n0" >"$work/rankfile"
# shellcheck source=slurm/localcluster/env.sh
out="$(source "$LC/env.sh" "$cname" && mbn_mpirun -np 4 --hostfile "$MBN_HOSTFILE_NAMES" -rf "$work/rankfile" -- \
  "$probe" --trials 1 --cross-bytes 1 --intra-bytes 1)" || fail "mpirun with a rankfile failed: $out"
check_placement "$out" "$n1" "$n0" "$n1" "$n0"
pass "a rankfile naming hosts places the ranks"

# The other helpers: a command on one node, and the variables for a caller's shell.
[[ $("$LC/exec.sh" --cluster "$cname" 1 -- hostname) == "mbn-$cname-n1" ]] || fail "exec.sh did not run on node 1"
[[ $("$LC/exec.sh" --cluster "$cname" 10.211.0.2 -- cat /proc/net/dev | grep -c eth0) == 1 ]] || fail "exec.sh by address"
(
  # shellcheck source=slurm/localcluster/env.sh
  source "$LC/env.sh" "$cname"
  [[ $MBN_NODES == 2 && $MBN_SLOTS == 2 && $MBN_RATE_BPS == 1000000000 && $MBN_SLURM == 0 ]] || fail "env.sh variables"
  [[ $(mbn_exec 0 -- hostname) == "mbn-$cname-n0" ]] || fail "env.sh's mbn_exec"
) || exit 1
pass "exec.sh and env.sh"

down_and_check "$cname" "$netns_before"

# One node slower than the rest (--node-rate): both directions of node 1's link are shaped to
# its own rate, so the cross-node rate is node 1's, and the settings reach env.sh. Bad values
# are refused before anything is created.
for bad in "5=1gbit" "1=fast" "x"; do
  rc=0
  err="$("$LC/up.sh" 2 --node-rate "$bad" --cluster "$cname" 2>&1 >/dev/null)" || rc=$?
  [[ $rc == 2 && $err == *"--node-rate"* ]] || fail "up.sh --node-rate $bad: want exit 2 naming --node-rate, got $rc: $err"
done
pass "bad --node-rate values refused with exit 2"
trap '"$LC/down.sh" --cluster "$cname" --quiet || true' EXIT
"$LC/up.sh" 2 --slots 2 --rate 1gbit --node-rate 1=250mbit --cluster "$cname" >/dev/null
[[ $("$LC/exec.sh" --cluster "$cname" 1 -- tc qdisc show dev eth0) == *"rate 250Mbit"* ]] || fail "node 1's link is not shaped to 250mbit"
[[ $("$LC/exec.sh" --cluster "$cname" 0 -- tc qdisc show dev eth0) == *"rate 1Gbit"* ]] || fail "node 0's link is not shaped to 1gbit"
(
  # shellcheck source=slurm/localcluster/env.sh
  source "$LC/env.sh" "$cname"
  [[ $MBN_NODE_RATES == "1gbit 250mbit" && $MBN_NODE_RATES_BPS == "1000000000 250000000" ]] || fail "env.sh per-node rates: '$MBN_NODE_RATES' '$MBN_NODE_RATES_BPS'"
) || exit 1
out="$("$LC/mpirun.sh" --cluster "$cname" -np 4 -- "$probe")" || fail "mpirun with a slow node failed: $out"
check_probe "$out" 2 2 250000000
down_and_check "$cname" "$netns_before"
rm -rf "$work"
echo "up ${up_s} s, down ${down_s} s"
