#!/usr/bin/env bash
# Local test cluster, (c): tearing down. A bring-up that fails after the network, or after
# slurmctld, removes everything itself; a second cluster of the same name is refused while one
# of another name runs beside it; down.sh of one leaves the other alone; down.sh twice is fine;
# as non-root, up.sh says root is needed and exits 2. After each: nothing left behind.
#   cluster_teardown_test.sh NAME
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
cname="$1"
other="${cname}b"
require_cluster_host 1
netns_before="$(netns_mount_state)"
trap '"$LC/down.sh" --cluster "$cname" --quiet || true; "$LC/down.sh" --cluster "$other" --quiet || true' EXIT

for stage in network slurm; do
  status=0
  MBN_TEST_FAIL_AT="$stage" "$LC/up.sh" 2 --slurm --cluster "$cname" >/dev/null 2>&1 || status=$?
  [[ $status == 1 ]] || fail "up.sh failing at '$stage' exited $status, not 1"
  assert_clean "$cname" "$netns_before"
done

"$LC/up.sh" 2 --cluster "$cname" >/dev/null 2>&1
status=0
msg="$("$LC/up.sh" 2 --cluster "$cname" 2>&1)" || status=$?
[[ $status == 2 && $msg == *"already"* && $(wc -l <<<"$msg") == 1 ]] || fail "a second '$cname' was not refused in one line (exit $status): $msg"
"$LC/up.sh" 2 --slurm --cluster "$other" >/dev/null 2>&1 || fail "a second cluster with another name did not come up"
[[ $("$LC/exec.sh" --cluster "$cname" 1 -- hostname) == "mbn-$cname-n1" ]] || fail "first cluster broken by the second"
[[ $("$LC/slurm.sh" --cluster "$other" sinfo -h -o '%D %t') == "2 idle" ]] || fail "second cluster's Slurm is not idle"
pass "two clusters side by side; a duplicate name refused"

down_and_assert_gone "$cname"
assert_clean "$cname" 1   # the other cluster's namespaces keep /run/netns mounted
[[ -n $(mbn_existing_namespaces "$other") ]] || fail "down.sh of '$cname' removed '$other'"
down_and_assert_gone "$other"
"$LC/down.sh" --cluster "$other" --quiet || fail "down.sh twice failed"
trap - EXIT
assert_clean "$other" "$netns_before"
assert_clean "$cname" "$netns_before"

# Non-root: up.sh refuses in one line. The scripts run from a world-readable copy, so that the
# check does not depend on where the checkout lives (a checkout in a 0700 home folder is out of
# an unprivileged user's reach).
if command -v setpriv >/dev/null; then
  copy="$(mktemp -d /tmp/mb-nonroot.XXXXXX)"
  trap 'rm -rf -- "$copy"' EXIT
  chmod 0755 "$copy"
  install -m 0755 "$LC/up.sh" "$copy/up.sh"
  install -m 0644 "$LC/common.sh" "$copy/common.sh"
  as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  if ! "${as_nobody[@]}" test -x "$copy/up.sh"; then
    echo "SKIP (non-root part only): user 65534 cannot reach $copy ($(stat -c %A "$(dirname "$copy")") $(dirname "$copy"))"
  else
    status=0
    msg="$("${as_nobody[@]}" "$copy/up.sh" 2 --cluster "$cname" 2>&1)" || status=$?
    [[ $status == 2 && $msg == *"needs root"* && $(wc -l <<<"$msg") == 1 ]] || fail "non-root up.sh: exit $status, '$msg'"
    pass "non-root: '$msg'"
  fi
fi
