#!/usr/bin/env bash
# Local test cluster, link-bound mode (up.sh --link-bound, docs/slurm.md "Link-bound mode"):
# 2 nodes x 2 slots, NICs at 100 Mbit/s with 2 ms each way (node 1 at 50 Mbit/s), in-node ports
# at 400 Mbit/s with 1 ms. Asserts
#   - every rank in a namespace of its own, the two of a node under the node's hostname;
#   - one-way rates (cluster_probe, TCP everywhere) never above the shaped rate and more than a
#     quarter of it (the probe's ranks spin: on a loaded machine they share the cores with the
#     emulator), node 1's slower NIC setting the rate into it;
#   - round trips never shorter than the delays set (2 x 1 ms in a node, 2 x (2 + 2) ms across);
#   - the link rate file names each node's NIC and in-node rate;
#   - bad input refused with exit 2 and one line before anything is created;
#   - a bring-up failing after the emulator started, and down.sh, stop it and leave nothing.
# Only lower bounds on times (the links cannot be beaten) and loose upper ones: CPU time cannot
# flip them.
#   cluster_link_bound_test.sh PROBE LINKEMU NAME
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
probe="$1"
export MESHBENCH_LINKEMU="$2"
cname="$3"
require_cluster_host 0
netns_before="$(netns_mount_state)"

# ---- bad input: exit 2, one line on stderr, nothing created ----
refused() {  # refused WORDS -- UP.SH ARGS...
  local words="$1" err status=0
  shift 2
  err="$("$LC/up.sh" "$@" --cluster "$cname" 2>&1 >/dev/null)" || status=$?
  [[ $status == 2 ]] || fail "up.sh $* exited $status, want 2: $err"
  [[ $(grep -c . <<<"$err") == 1 ]] || fail "up.sh $* printed more than one line: $err"
  [[ $err == *"$words"* ]] || fail "up.sh $* did not say '$words': $err"
  [[ -z $(mbn_existing_namespaces "$cname") && ! -e $(mbn_state_dir "$cname") ]] || fail "up.sh $* left something behind"
}
refused "at most 32 ranks" -- 9 --slots 4 --link-bound
refused "from 1mbit to 1gbit" -- 2 --link-bound --rate 2gbit
refused "above 1s" -- 2 --link-bound --delay 2s
refused "must look like 2ms" -- 2 --link-bound --in-node-delay fast
refused "node 5 does not exist" -- 2 --link-bound --node-delay 5=1ms
refused "need --link-bound" -- 2 --delay 1ms
refused "not --slurm" -- 2 --link-bound --slurm
MESHBENCH_LINKEMU=/nonexistent refused "needs meshbench-linkemu" -- 2 --link-bound
pass "bad input refused in one line with exit 2, nothing created"

# A bring-up that fails once the emulator runs tears it down with everything else.
status=0
MBN_TEST_FAIL_AT=network "$LC/up.sh" 2 --slots 2 --link-bound --cluster "$cname" >/dev/null 2>&1 || status=$?
[[ $status == 1 ]] || fail "a bring-up failing at its network stage exited $status, want 1"
assert_clean "$cname" "$netns_before"
! pgrep -f "$(mbn_state_dir "$cname")/bin/meshbench-linkemu" >/dev/null || fail "meshbench-linkemu outlived a failed bring-up"
pass "a failed bring-up stopped meshbench-linkemu and left nothing"

trap '"$LC/down.sh" --cluster "$cname" --quiet || true' EXIT
"$LC/up.sh" 2 --slots 2 --link-bound --rate 100mbit --node-rate 1=50mbit --delay 2ms \
  --in-node-rate 400mbit --in-node-delay 1ms --cluster "$cname" >/dev/null
state="$(mbn_state_dir "$cname")"
[[ $(mbn_existing_namespaces "$cname" | wc -l) == 4 ]] || fail "want 4 slot namespaces, got: $(mbn_existing_namespaces "$cname")"
n0="$(mbn_node_ns "$cname" 0)"
n1="$(mbn_node_ns "$cname" 1)"
want="$(printf '%s eth0 100000000\n%s in-node 400000000\n%s eth0 50000000\n%s in-node 400000000' "$n0" "$n0" "$n1" "$n1")"
[[ $(grep -v '^#' "$state/link_rates") == "$want" ]] || fail "link rate file: want '$want', got '$(cat "$state/link_rates")'"
pass "4 slot namespaces; the link rate file names each node's NIC and in-node rate"

out="$("$LC/mpirun.sh" --cluster "$cname" -np 4 -- "$probe" --cross-bytes 4194304 --intra-bytes 16777216 --window 4 --trials 2)" ||
  fail "mpirun on the link-bound cluster failed: $out"
check_placement "$out" "$n0" "$n0" "$n1" "$n1"
grep -q '^probe ok$' <<<"$out" || fail "probe did not finish: $out"
cross="$(sed -n 's/^bw kind=cross .* MBps=\([0-9.]*\) .*/\1/p' <<<"$out")"
intra="$(sed -n 's/^bw kind=intra .* MBps=\([0-9.]*\) .*/\1/p' <<<"$out")"
# Rank 0 sends to a rank of node 1: node 1's 50 Mbit/s NIC is the narrowest link on the way.
awk -v c="$cross" 'BEGIN { exit !(c * 8 <= 50 * 1.01 && c * 8 > 12.5) }' || fail "cross-node $cross MB/s: want at most 50 Mbit/s and more than a quarter of it"
awk -v i="$intra" 'BEGIN { exit !(i * 8 <= 400 * 1.01 && i * 8 > 100) }' || fail "in-node $intra MB/s: want at most 400 Mbit/s and more than a quarter of it"
pass "one-way rates: across $cross MB/s (node 1 shaped to 6.25), in a node $intra MB/s (shaped to 50)"

# Round trips of one byte between two slots' namespaces (Python's sockets, no MPI).
rtt_ms() {  # rtt_ms FROM_NS TO_NS TO_ADDR: the least of 10 round trips, in ms
  /usr/bin/python3 - "$@" <<'EOF'
import socket, subprocess, sys, time
src, dst, addr = sys.argv[1:4]
server = subprocess.Popen(["nsenter", "--net=/var/run/netns/" + dst, "/usr/bin/python3", "-c", """
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('%s', 5101)); s.listen(1)
print('up', flush=True)
c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while True:
    d = c.recv(1)
    if not d: break
    c.sendall(d)
""" % addr], stdout=subprocess.PIPE, text=True)
server.stdout.readline()
client = subprocess.run(["nsenter", "--net=/var/run/netns/" + src, "/usr/bin/python3", "-c", """
import socket, time
c = socket.create_connection(('%s', 5101)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
best = 1e9
for _ in range(10):
    t = time.perf_counter(); c.sendall(b'x'); c.recv(1); best = min(best, time.perf_counter() - t)
print('%%.3f' %% (best * 1000))
""" % addr], capture_output=True, text=True, check=True)
server.wait(timeout=10)
print(client.stdout.strip())
EOF
}
in_rtt="$(rtt_ms "$n0" "${n0}s1" "$(awk '$2 == "'"${n0}s1"'" { print $3 }' "$state/slots")")"
x_rtt="$(rtt_ms "$n0" "$n1" "$(mbn_node_addr 1)")"
awk -v r="$in_rtt" 'BEGIN { exit !(r >= 2.0 && r < 6.0) }' || fail "in-node round trip $in_rtt ms: want at least 2 x 1 ms (and under 6)"
awk -v r="$x_rtt" 'BEGIN { exit !(r >= 8.0 && r < 24.0) }' || fail "cross-node round trip $x_rtt ms: want at least 2 x (2 + 2) ms (and under 24)"
pass "round trips: in a node $in_rtt ms (delays 2 x 1 ms), across $x_rtt ms (2 x (2 + 2) ms)"

read -r emulator <"$state/linkemu.pid"
down_and_check "$cname" "$netns_before"
! kill -0 "$emulator" 2>/dev/null || fail "meshbench-linkemu (pid $emulator) still runs after down.sh"
pass "down.sh stopped meshbench-linkemu and left nothing"
