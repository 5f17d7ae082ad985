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
assert [x["rank"] for x in r["ranks"]] == [0, 1], r["ranks"]
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

# Text output comes from rank 0 only.
"${clean_env[@]}" "${mpi[@]}" -np 2 "$exe" doctor > "$tmp/r.txt" 2> /dev/null
[ "$(grep -c '^summary: ' "$tmp/r.txt")" = 1 ] && pass "one report for the job" || fail "expected one summary line"
finish
