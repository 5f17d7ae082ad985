# Shared by the doctor_*.sh integration tests: assertions on doctor's exit status and JSON.
set -uo pipefail
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# The template's variables and launcher variables must not leak in from the caller's shell.
clean_env=(env -u FI_PROVIDER -u FI_EFA_USE_DEVICE_RDMA -u NCCL_PROTO -u NCCL_BUFFSIZE -u NCCL_P2P_NET_CHUNKSIZE
           -u NCCL_NET_GDR_LEVEL -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK -u SLURM_STEP_ID
           -u MESHBENCH_TEST_CLOCK_OFFSET_MS)
expect_rc() {  # expect_rc WANT GOT WHAT
  if [ "$1" = "$2" ]; then pass "$3 (exit $2)"; else fail "$3: exit $2, expected $1"; fi
}
# check_status FILE ID STATUS [substring of reason]
check_status() {
  /usr/bin/python3 - "$@" <<'PY' || failures=$((failures + 1))
import json, sys
path, cid, want = sys.argv[1:4]
text = sys.argv[4] if len(sys.argv) > 4 else None
report = json.load(open(path))
checks = {c["id"]: c for c in report["checks"]}
c = checks.get(cid)
if c is None:
    sys.exit(f"FAIL: no check {cid}")
if c["status"] != want:
    sys.exit(f"FAIL: {cid} is {c['status']}, expected {want}: {c['reason']}")
if text is not None and text not in c["reason"]:
    sys.exit(f"FAIL: {cid} reason lacks '{text}': {c['reason']}")
print(f"ok: {cid} {want}" + (f" ('{text}')" if text else ""))
PY
}
finish() {
  if [ "$failures" -ne 0 ]; then echo "$failures failure(s)" >&2; exit 1; fi
  echo "all passed"
}
