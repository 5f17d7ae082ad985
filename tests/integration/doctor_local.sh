#!/usr/bin/env bash
# doctor on this machine without a launcher: most checks SKIP or WARN, each with its reason.
exe="$1"
source "$(dirname "$0")/doctor_lib.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

"${clean_env[@]}" "$exe" doctor --format json > "$tmp/r.json"; rc=$?
# On a machine without GPU or EFA nothing is wrong, only absent: exit 0. (Elsewhere what is found decides.)
has_efa=$(grep -l -i '0xefa' /sys/bus/pci/devices/*/device 2>/dev/null | wc -l)
has_nvidia=$([ -e /proc/driver/nvidia/version ] && echo 1 || echo 0)
[ "$has_efa" = 0 ] && [ "$has_nvidia" = 0 ] && expect_rc 0 "$rc" "doctor on a box without GPU or EFA"
check_status "$tmp/r.json" env.template WARN "unset (all) FI_PROVIDER"
check_status "$tmp/r.json" env.identical SKIP "one rank"
check_status "$tmp/r.json" env.legacy PASS
check_status "$tmp/r.json" versions.mpi PASS "Open MPI"
check_status "$tmp/r.json" versions.hwloc PASS
check_status "$tmp/r.json" versions.kernel PASS "$(uname -r)"
check_status "$tmp/r.json" clock.offset SKIP "one process"
if [ "$has_nvidia" = 0 ]; then
  check_status "$tmp/r.json" versions.nvidia_driver SKIP "NVIDIA kernel module is not loaded"
  check_status "$tmp/r.json" versions.cuda_driver SKIP "libcuda.so.1"
  check_status "$tmp/r.json" devices.gpus WARN "no NVIDIA GPU"
fi
if command -v nvidia-smi > /dev/null || ldconfig -p | grep -q libnvidia-ml.so.1; then :; else
  check_status "$tmp/r.json" gpu.health SKIP "neither NVML"
fi
if [ "$has_efa" = 0 ]; then
  check_status "$tmp/r.json" devices.efa SKIP "no EFA device"
  check_status "$tmp/r.json" devices.mtu SKIP "no EFA on any node"
  check_status "$tmp/r.json" fabric.provider SKIP "no EFA device on this node"
  [ -e /opt/amazon/efa_installed_packages ] || check_status "$tmp/r.json" versions.efa_installer SKIP "EFA installer was not run"
  [ -d /opt/amazon/ofi-nccl ] || check_status "$tmp/r.json" versions.aws_ofi_nccl SKIP "no aws-ofi-nccl plugin"
  if pkg-config --exists libfabric; then check_status "$tmp/r.json" versions.libfabric PASS; fi

  # FI_PROVIDER=efa where no EFA can exist: libfabric users would fail to open an endpoint.
  "${clean_env[@]}" FI_PROVIDER=efa "$exe" doctor --format json > "$tmp/fi.json"
  pkg-config --exists libfabric && check_status "$tmp/fi.json" fabric.provider WARN "FI_PROVIDER=efa is set"

  # Told it is a p5, this box lacks GPUs, EFA devices and the efa provider: FAIL, exit 1.
  "${clean_env[@]}" "$exe" doctor --format json --node-type p5 > "$tmp/p5.json"; rc=$?
  expect_rc 1 "$rc" "doctor --node-type p5 on a box without GPU or EFA"
  check_status "$tmp/p5.json" devices.efa FAIL "p5 has 32"
  check_status "$tmp/p5.json" devices.gpus FAIL "p5 has 8"
  pkg-config --exists libfabric && check_status "$tmp/p5.json" fabric.provider FAIL "no efa provider although the node type has EFA"
fi

# Text form: one line per check, status first.
"${clean_env[@]}" "$exe" doctor > "$tmp/r.txt"
grep -q '^WARN  env.template' "$tmp/r.txt" && pass "text line for env.template" || fail "no 'WARN  env.template' line"
grep -q '^      fix: ' "$tmp/r.txt" && pass "text fix line" || fail "no fix line"
grep -q '^summary: ' "$tmp/r.txt" && pass "text summary" || fail "no summary line"

# --strict: unset template variables are a FAIL.
"${clean_env[@]}" "$exe" doctor --strict --format json > "$tmp/strict.json"; rc=$?
expect_rc 1 "$rc" "doctor --strict with the template unset"
check_status "$tmp/strict.json" env.template FAIL

# A team template in the Slurm env-file format, satisfied by the environment.
cat > "$tmp/team.env" <<'ENV'
# p5 template (slurm/env style)
export FI_PROVIDER=efa
export NCCL_PROTO=LL128   # protocol
NCCL_SOCKET_IFNAME="^docker,lo,veth"
unset FI_EFA_FORK_SAFE
ENV
"${clean_env[@]}" FI_PROVIDER=efa NCCL_PROTO=LL128 NCCL_SOCKET_IFNAME='^docker,lo,veth' \
  "$exe" doctor --env-template "$tmp/team.env" --format json --output "$tmp/out.json" > "$tmp/team.json"
check_status "$tmp/team.json" env.template PASS "all 4 template variables"
cmp -s "$tmp/team.json" "$tmp/out.json" && pass "--output writes the same JSON" || fail "--output differs from stdout"
"${clean_env[@]}" FI_PROVIDER=efa NCCL_PROTO=Simple NCCL_SOCKET_IFNAME='^docker,lo,veth' \
  "$exe" doctor --env-template "$tmp/team.env" --format json > "$tmp/team2.json"; rc=$?
expect_rc 1 "$rc" "a value differing from the team template"
check_status "$tmp/team2.json" env.template FAIL "NCCL_PROTO=Simple (template: LL128)"

# Bad input: exit 2 with one line naming the problem, nothing written.
"$exe" doctor --format xml > /dev/null 2> "$tmp/err"; expect_rc 2 $? "--format xml"
"$exe" doctor --env-template "$tmp/missing.env" > /dev/null 2> "$tmp/err"; expect_rc 2 $? "missing --env-template"
grep -q "cannot read the environment template" "$tmp/err" && pass "missing template message" || fail "message: $(cat "$tmp/err")"
printf 'FI_PROVIDER=efa\nthis is not an assignment\n' > "$tmp/bad.env"
"$exe" doctor --env-template "$tmp/bad.env" > /dev/null 2> "$tmp/err"; expect_rc 2 $? "malformed --env-template"
grep -q "bad.env:2" "$tmp/err" && pass "bad line named" || fail "message: $(cat "$tmp/err")"
"$exe" doctor --node-type z9 > /dev/null 2>&1; expect_rc 2 $? "unknown --node-type"
MESHBENCH_TEST_CLOCK_OFFSET_MS=soon "$exe" doctor > /dev/null 2>&1; expect_rc 2 $? "bad MESHBENCH_TEST_CLOCK_OFFSET_MS"
"${clean_env[@]}" "$exe" doctor --output /nonexistent-dir/x.json > /dev/null 2>&1; expect_rc 2 $? "unwritable --output"
[ ! -e /nonexistent-dir/x.json.tmp ] && pass "no partial output"
finish
