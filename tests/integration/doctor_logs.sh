#!/usr/bin/env bash
# meshbench logs summary / merge on canned logs in NCCL's line formats (docs/doctor.md, "meshbench logs summary").
exe="$1"
source "$(dirname "$0")/doctor_lib.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export TZ=UTC  # zone-less timestamps are local time

cat > "$tmp/nccl-a.log" <<'LOG'
NCCL version 2.27.7+cuda12.9
node-a:11:11 [0] NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v9)
node-a:11:11 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.16.3
node-a:11:11 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)
node-a:11:11 [0] NCCL INFO Using network Libfabric
node-a:11:12 [0] NCCL INFO comm 0xa1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0
node-a:11:12 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA
node-a:11:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Libfabric/0/GDRDMA
node-a:11:12 [0] NCCL INFO ncclCommInitRankConfig comm 0xa1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 101c0 commId 0x77 - Init COMPLETE
[2025-01-02 13:45:03] node-a:11:13 [0] transport/net.cc:1234 (sendProxyProgress) NCCL WARN NET/OFI Request completed with error
LOG
cat > "$tmp/dmesg-a.txt" <<'LOG'
[Thu Jan  2 13:45:02 2025] efa 0000:10:1c.0: Failed to process command DESTROY_QP
LOG
cat > "$tmp/meshbench.log" <<'LOG'
2025-01-02T13:45:01Z meshbench rank 0: starting all_reduce 64 MiB on dimension dp
2025-01-02T13:45:04.5Z meshbench rank 0: watchdog: no progress for 3 s
LOG

"$exe" logs summary "$tmp/nccl-a.log" > "$tmp/s.txt"; expect_rc 0 $? "logs summary"
grep -q '^NCCL 2.27.7 (CUDA 12.9)' "$tmp/s.txt" && pass "summary names the version" || fail "$(cat "$tmp/s.txt")"
grep -q 'provider efa (fabric efa), 4 NICs' "$tmp/s.txt" && pass "summary names the provider" || fail "$(cat "$tmp/s.txt")"
grep -q 'NET/GDRDMA 2' "$tmp/s.txt" && pass "summary counts transports" || fail "$(cat "$tmp/s.txt")"
"$exe" logs summary --format json "$tmp/nccl-a.log" > "$tmp/s.json"
/usr/bin/python3 - "$tmp/s.json" <<'PY' || failures=$((failures + 1))
import json, sys
s = json.load(open(sys.argv[1]))
assert s["ofi"]["provider"] == "efa" and s["ofi"]["plugin_version"] == "1.16.3", s["ofi"]
assert s["transports_used"] == ["NET/GDRDMA"], s["transports_used"]
assert s["communicators"][0]["comm_id"] == "0x77" and s["communicators"][0]["nnodes"] == 2
assert len(s["warnings"]) == 1 and s["warnings"][0]["timestamp"] == "2025-01-02 13:45:03"
print("ok: summary JSON")
PY

"$exe" logs merge "$tmp/meshbench.log" "$tmp/nccl-a.log" "$tmp/dmesg-a.txt" > "$tmp/m.txt"; expect_rc 0 $? "logs merge"
order=$(awk '{ match($0, /\[[^]]*:[0-9]+\]/); print substr($0, RSTART, RLENGTH) }' "$tmp/m.txt" | tr '\n' ' ')
# NCCL's INFO lines carry no time (only WARN lines do by default): lines 1-9 take the file's first
# timestamp, 13:45:03, and stay just before the WARN line they preceded.
want="[meshbench.log:1] [dmesg-a.txt:1] [nccl-a.log:1] [nccl-a.log:2] [nccl-a.log:3] [nccl-a.log:4] [nccl-a.log:5] [nccl-a.log:6] [nccl-a.log:7] [nccl-a.log:8] [nccl-a.log:9] [nccl-a.log:10] [meshbench.log:2] "
[ "$order" = "$want" ] && pass "merged in time order" || fail "order: $order"
grep -q '^2025-01-02T13:45:02.000000Z   \[dmesg-a.txt:1\]' "$tmp/m.txt" && pass "dmesg -T line placed" || fail "$(cat "$tmp/m.txt")"
grep -q '^2025-01-02T13:45:03.000000Z ~ \[nccl-a.log:2\]' "$tmp/m.txt" && pass "untimed lines inherit, marked ~" || fail "$(cat "$tmp/m.txt")"
"$exe" logs merge --format json "$tmp/meshbench.log" "$tmp/dmesg-a.txt" > "$tmp/m.json"
/usr/bin/python3 -c "
import json; m=json.load(open('$tmp/m.json'))
assert [l['source'] for l in m] == ['meshbench.log','dmesg-a.txt','meshbench.log'], m
print('ok: merge JSON')" || failures=$((failures + 1))

printf '2025-01-02T13:45:05Z bytes \xff\xfe that are not UTF-8\n' > "$tmp/binary.log"
"$exe" logs merge --format json "$tmp/binary.log" > "$tmp/b.json"; expect_rc 0 $? "merge JSON of a non-UTF-8 line"
"$exe" logs > /dev/null 2>&1; expect_rc 2 $? "logs without an action"
"$exe" logs frobnicate x > /dev/null 2>&1; expect_rc 2 $? "unknown logs action"
"$exe" logs summary "$tmp/missing.log" > /dev/null 2>&1; expect_rc 2 $? "missing log file"
"$exe" logs merge > /dev/null 2>&1; expect_rc 2 $? "merge without files"
"$exe" logs merge --boot-time soon "$tmp/dmesg-a.txt" > /dev/null 2>&1; expect_rc 2 $? "bad --boot-time"
finish
