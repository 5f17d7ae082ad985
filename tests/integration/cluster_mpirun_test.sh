#!/usr/bin/env bash
# Local test cluster, (a): 2 nodes x 2 slots behind 1 Gbit/s links; mpirun across the
# namespaces runs 4 ranks of cluster_probe. Asserts 2 hostnames with 2 ranks each in hostfile
# order, a cross-node rate within the shaping, a much faster intra-node rate, the exec.sh and
# env.sh helpers, and that down.sh leaves nothing behind.
#   cluster_mpirun_test.sh PROBE NAME
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
probe="$1"
cname="$2"
require_cluster_host 0
netns_before="$(netns_mount_state)"

trap '"$LC/down.sh" --cluster "$cname" --quiet || true' EXIT
started=$SECONDS
"$LC/up.sh" 2 --slots 2 --rate 1gbit --cluster "$cname" >/dev/null
up_s=$((SECONDS - started))

out="$("$LC/mpirun.sh" --cluster "$cname" -np 4 -- "$probe")" || fail "mpirun across the namespaces failed: $out"
echo "$out"
check_probe "$out" 2 2 1000000000
# By slot, node by node, in hostfile order: ranks 0,1 on node 0 and 2,3 on node 1.
for r in 0 1 2 3; do
  grep -q "^rank=$r host=mbn-$cname-n$((r / 2)) " <<<"$out" || fail "rank $r is not on mbn-$cname-n$((r / 2)): $out"
done
pass "ranks placed node by node in hostfile order"

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

started=$SECONDS
"$LC/down.sh" --cluster "$cname" --quiet
down_s=$((SECONDS - started))
trap - EXIT
assert_clean "$cname" "$netns_before"
echo "up ${up_s} s, down ${down_s} s"
