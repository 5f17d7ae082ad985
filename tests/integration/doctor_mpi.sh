#!/usr/bin/env bash
# doctor under mpirun on this machine: both ranks gathered, an env difference between ranks and
# a (test-only) clock offset detected.
exe="$1"
source "$(dirname "$0")/doctor_lib.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mpi=(mpirun --oversubscribe)

"${clean_env[@]}" "${mpi[@]}" -np 2 "$exe" doctor --format json > "$tmp/r.json" 2> "$tmp/err"; rc=$?
[ "$rc" = 0 ] || { fail "mpirun -np 2 doctor: exit $rc"; cat "$tmp/err" >&2; }
/usr/bin/python3 - "$tmp/r.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
assert r["mpi"] is True, r["mpi"]
assert r["world_size"] == 2, r["world_size"]
# One environment on both ranks: stored once, for ranks 0-1.
assert [g["ranks"] for g in r["rank_facts"]] == [[[0, 1]]], r["rank_facts"]
assert len(r["nodes"]) == 1 and r["nodes"][0]["ranks"] == [0, 1], r["nodes"]
clock = r["clock"]
assert clock["measured"] and clock["same_node"], clock
off = clock["offsets"][0]
assert abs(off["offset_ms"]) < 1.0, off  # one clock: about 0 ms
print(f"ok: 2 ranks gathered; same-node clock offset {off['offset_ms']:+.4f} ms (rtt {off['rtt_ms']:.4f} ms)")
PY
check_status "$tmp/r.json" env.identical PASS
check_status "$tmp/r.json" clock.offset PASS "largest offset"

# MPMD: the same job with NCCL_PROTO differing between the ranks.
"${clean_env[@]}" "${mpi[@]}" -np 1 env NCCL_PROTO=LL128 "$exe" doctor --format json \
  : -np 1 env NCCL_PROTO=Simple "$exe" doctor --format json > "$tmp/env.json" 2> /dev/null; rc=$?
expect_rc 1 "$rc" "ranks with different NCCL_PROTO"
check_status "$tmp/env.json" env.identical FAIL "NCCL_PROTO differs: LL128 on rank 0 on $(hostname); Simple on rank 1 on $(hostname)"

# The test-only clock offset, by option (every rank but 0) and by environment (one rank).
"${clean_env[@]}" "${mpi[@]}" -np 2 "$exe" doctor --format json --inject-clock-offset-ms 25 > "$tmp/clk.json" 2> /dev/null; rc=$?
expect_rc 1 "$rc" "--inject-clock-offset-ms 25"
check_status "$tmp/clk.json" clock.offset FAIL "ms ahead of rank 0's clock"
/usr/bin/python3 -c "
import json,sys; o=json.load(open('$tmp/clk.json'))['clock']['offsets'][0]
assert 24.0 < o['offset_ms'] < 26.0, o; print('ok: injected offset measured as %.3f ms' % o['offset_ms'])" || failures=$((failures + 1))
"${clean_env[@]}" "${mpi[@]}" -np 1 "$exe" doctor --format json \
  : -np 1 env MESHBENCH_TEST_CLOCK_OFFSET_MS=-40 "$exe" doctor --format json > "$tmp/clk2.json" 2> /dev/null; rc=$?
expect_rc 1 "$rc" "MESHBENCH_TEST_CLOCK_OFFSET_MS=-40 on rank 1"
check_status "$tmp/clk2.json" clock.offset FAIL "ms behind rank 0's clock"
check_status "$tmp/clk2.json" env.identical PASS  # test knobs are not compared

# Two emulated nodes: ranks 2-3 in their own UTS namespace with another hostname (root only).
# doctor then sees two nodes, measures node b's first rank against rank 0, and names hosts.
if unshare --uts true 2> /dev/null; then
  node_b=(unshare --uts sh -c 'hostname doctor-node-b && exec "$0" "$@"')
  "${clean_env[@]}" "${mpi[@]}" -np 2 "$exe" doctor --format json \
    : -np 2 "${node_b[@]}" "$exe" doctor --format json > "$tmp/n.json" 2> /dev/null; rc=$?
  expect_rc 0 "$rc" "two emulated nodes"
  /usr/bin/python3 - "$tmp/n.json" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1]))
nodes = [(n["host"], n["leader_rank"], n["ranks"]) for n in r["nodes"]]
assert nodes[1] == ("doctor-node-b", 2, [2, 3]), nodes
c = r["clock"]
assert c["measured"] and not c["same_node"], c
o = c["offsets"][0]
assert o["host"] == "doctor-node-b" and o["rank"] == 2 and abs(o["offset_ms"]) < 1.0, o
print(f"ok: two nodes; node b's clock offset {o['offset_ms']:+.4f} ms")
PY
  check_status "$tmp/n.json" clock.offset PASS "doctor-node-b"
  # A skew on node b only (the per-process variable), and NCCL_PROTO set differently there.
  "${clean_env[@]}" "${mpi[@]}" -np 2 "$exe" doctor --format json \
    : -np 2 env MESHBENCH_TEST_CLOCK_OFFSET_MS=30 NCCL_PROTO=Simple "${node_b[@]}" "$exe" doctor --format json \
    > "$tmp/nb.json" 2> /dev/null; rc=$?
  expect_rc 1 "$rc" "node b skewed by 30 ms and with another NCCL_PROTO"
  check_status "$tmp/nb.json" clock.offset FAIL "doctor-node-b (rank 2) is "
  /usr/bin/python3 -c "
import json; o=json.load(open('$tmp/nb.json'))['clock']['offsets'][0]
assert 29.0 < o['offset_ms'] < 31.0, o; print('ok: node b measured %.3f ms ahead' % o['offset_ms'])" || failures=$((failures + 1))
  check_status "$tmp/nb.json" env.identical FAIL "NCCL_PROTO differs: (unset) on ranks 0-1 on $(hostname); Simple on ranks 2-3 on doctor-node-b"
else
  echo "skip: unshare --uts not permitted here (two-node emulation needs root)"
fi

# Text output comes from rank 0 only.
"${clean_env[@]}" "${mpi[@]}" -np 2 "$exe" doctor > "$tmp/r.txt" 2> /dev/null
[ "$(grep -c '^summary: ' "$tmp/r.txt")" = 1 ] && pass "one report for the job" || fail "expected one summary line"
finish
