#!/usr/bin/env bash
# Local test cluster, (d): up.sh records the rates it shapes, and meshbench's live discovery on
# the emulated nodes reports them. 2 nodes x 1 slot, node 1 slower (--node-rate); asserts the
# link rate file's lines, that `meshbench topo` under mpirun.sh gives each node's eth0 its
# shaped rate with a note naming the file (no "not known" default), and env.sh's variable.
#   cluster_link_rates_test.sh MESHBENCH NAME
set -euo pipefail
# shellcheck source=tests/integration/cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
meshbench="$1"
cname="$2"
require_cluster_host 0
netns_before="$(netns_mount_state)"

trap '"$LC/down.sh" --cluster "$cname" --quiet || true' EXIT
"$LC/up.sh" 2 --slots 1 --rate 1gbit --node-rate 1=250mbit --cluster "$cname" >/dev/null
rates="$(mbn_state_dir "$cname")/link_rates"
want="$(printf 'mbn-%s-n0 eth0 1000000000\nmbn-%s-n1 eth0 250000000' "$cname" "$cname")"
[[ $(grep -v '^#' "$rates") == "$want" ]] || fail "link rate file: want '$want', got '$(cat "$rates")'"
pass "up.sh recorded each node's shaped rate in $rates"

(
  # shellcheck source=slurm/localcluster/env.sh
  source "$LC/env.sh" "$cname"
  [[ $MESHBENCH_LINK_RATES == "$rates" ]] || fail "env.sh: MESHBENCH_LINK_RATES='${MESHBENCH_LINK_RATES:-}', want '$rates'"
) || exit 1

json="$("$LC/mpirun.sh" --cluster "$cname" -np 2 -- "$meshbench" topo --format json)" || fail "meshbench topo under mpirun.sh failed: $json"
/usr/bin/python3 - "$json" "$rates" <<'EOF' || fail "topo did not report the shaped rates: $json"
import json, sys
topo, rates = json.loads(sys.argv[1]), sys.argv[2]
speeds = sorted(nic["speed_gbps"] for layout in topo["layouts"] for nic in layout["nics"])
assert speeds == [0.03125, 0.125], speeds
for layout in topo["layouts"]:
    notes = " | ".join(layout["notes"])
    assert "not known" not in notes, notes
    assert "the rate its link is shaped to, from link rate file " + rates in notes, notes
EOF
pass "live discovery on the emulated nodes reports 1 Gb/s and 250 Mb/s, and says where from"

down_and_check "$cname" "$netns_before"
