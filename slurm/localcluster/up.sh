#!/usr/bin/env bash
# Brings up the local test cluster: N emulated nodes on this machine (docs/slurm.md, "The local test cluster").
#
#   up.sh N [--slots S] [--rate 1gbit|none] [--node-rate K=RATE ...] [--slurm] [--cluster NAME]
#   up.sh N --link-bound [--slots S] [--rate RATE] [--delay D] [--in-node-rate RATE]
#         [--in-node-delay D] [--node-rate K=RATE ...] [--node-delay K=D ...] [--cluster NAME]
#     (environment: MBN_STATE_ROOT, MBN_KEEP_LOGS=DIR keeps the logs of a failed bring-up)
#   up.sh --can-run [--slurm]     exit 0 if this machine can host one, else print why, exit 2
#
# Each node is a network namespace with its own address (10.211.0.k+1/24) and hostname; all are
# joined through a bridge that lives in a namespace of its own, and tc shapes every node's link
# in both directions (--node-rate gives node K a rate of its own: a slow node for the cost
# model's tests, where one figure for every network link cannot explain every mapping's time).
# The rates go to $MBN_STATE/link_rates, which meshbench's live discovery reads on the nodes
# (the helpers export MESHBENCH_LINK_RATES naming it), so `topo` and the cost model know them.
# Nothing is put on the root namespace. With --slurm, slurmctld runs in
# node 0's namespace and one slurmd per node in that node's namespace, each slurmd with its own
# mount namespace and a private /tmp. Configs, state and logs live under
# $MBN_STATE_ROOT/NAME (default /var/lib/meshbench/localcluster/NAME).
#
# --link-bound: every rank gets a network namespace of its own (node K's slot 0 is mbn-NAME-nK,
# its slot S mbn-NAME-nKsS, all with node K's hostname), and meshbench-linkemu (built beside
# meshbench; MESHBENCH_LINKEMU names another) moves every frame between them, inside a node too:
# each slot's in-node port at --in-node-rate with --in-node-delay, each node's NIC at --rate with
# --delay (one way, per NIC: node to node crosses two), tail-dropping queues of 4 MiB. Open MPI
# then runs TCP between every pair of ranks, so links, not the scheduler, set the time
# (docs/slurm.md, "Link-bound mode"). Defaults: --rate 25mbit --delay 2ms --in-node-rate
# 100mbit --in-node-delay 1ms, rates the emulator carries for 8 ranks on 2 cores.
#
# On any failure everything created so far is torn down again (down.sh) before exiting 1.
# Prints the cluster's name and how to use it; see docs/slurm.md.
set -euo pipefail

# shellcheck disable=SC2034  # read by common.sh

MBN_SCRIPT="up.sh"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm/localcluster/common.sh
source "$here/common.sh"

nodes=""
slots=2
rate=""
node_rate_specs=()
link_bound=0
delay=""
in_node_rate=""
in_node_delay=""
node_delay_specs=()
with_slurm=0
cluster=""
can_run=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) mbn_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    --slots) slots="${2:?--slots needs a value}"; shift 2 ;;
    --rate) rate="${2:?--rate needs a value}"; shift 2 ;;
    --node-rate) node_rate_specs+=("${2:?--node-rate needs K=RATE}"); shift 2 ;;
    --link-bound) link_bound=1; shift ;;
    --delay) delay="${2:?--delay needs a value}"; shift 2 ;;
    --in-node-rate) in_node_rate="${2:?--in-node-rate needs a value}"; shift 2 ;;
    --in-node-delay) in_node_delay="${2:?--in-node-delay needs a value}"; shift 2 ;;
    --node-delay) node_delay_specs+=("${2:?--node-delay needs K=DELAY}"); shift 2 ;;
    --slurm) with_slurm=1; shift ;;
    --cluster) cluster="${2:?--cluster needs a name}"; shift 2 ;;
    --can-run) can_run=1; shift ;;
    -*) mbn_die "unknown option '$1'; see up.sh --help" 2 ;;
    *)
      [[ -z $nodes ]] || mbn_die "unexpected argument '$1'; see up.sh --help" 2
      nodes="$1"; shift ;;
  esac
done

reason="$(mbn_cannot_run_reason "$with_slurm")"
if [[ $can_run == 1 ]]; then
  [[ -z $reason ]] || { printf '%s\n' "$reason"; exit 2; }
  exit 0
fi
[[ -z $reason ]] || mbn_die "$reason" 2

if [[ ! $nodes =~ ^[0-9]+$ ]] || ((nodes < 1 || nodes > 200)); then
  mbn_die "N must be a node count from 1 to 200 (got '${nodes}'); see up.sh --help" 2
fi
if [[ ! $slots =~ ^[0-9]+$ ]] || ((slots < 1 || slots > 256)); then
  mbn_die "--slots must be 1..256 (got '$slots')" 2
fi
# rate_in_bps(RATE, OPTION): a tc rate in bits per second on stdout, 0 for 'none'.
rate_in_bps() {
  [[ $1 == none ]] && { echo 0; return 0; }
  # tc's own units, bits only: "kbps" means kilobytes in tc and is a classic trap.
  [[ ${1,,} =~ ^([0-9]+(\.[0-9]+)?)(bit|kbit|mbit|gbit)$ ]] ||
    mbn_die "$2 must look like 100mbit, 1gbit or 2.5gbit, or be 'none' (got '$1')" 2
  local bps
  bps="$(awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" 'BEGIN {
    m = (u == "gbit") ? 1e9 : (u == "mbit") ? 1e6 : (u == "kbit") ? 1e3 : 1; printf "%.0f", n * m }')"
  ((bps >= 1000000)) || mbn_die "$2 below 1mbit would make MPI time out (got '$1')" 2
  echo "$bps"
}
if [[ $link_bound == 1 ]]; then
  rate="${rate:-25mbit}"
  [[ $with_slurm == 0 ]] || mbn_die "--link-bound runs under mpirun.sh only, not --slurm (Slurm's daemons would each need every slot's namespace)" 2
  # Each rank is a namespace, an Open MPI daemon and a TCP peer of every other: beyond 32 the
  # 2-core machines this mode is for spend the time on them, not on the links.
  ((nodes * slots <= 32)) || mbn_die "--link-bound places at most 32 ranks (got $nodes nodes x $slots slots = $((nodes * slots))); use fewer nodes or slots" 2
else
  rate="${rate:-1gbit}"
  for given in "$delay" "$in_node_rate" "$in_node_delay" "${node_delay_specs[@]}"; do
    [[ -z $given ]] || mbn_die "--delay, --in-node-rate, --in-node-delay and --node-delay need --link-bound (tc here shapes rates only)" 2
  done
fi
rate_bps="$(rate_in_bps "$rate" --rate)"
# Per node: the --rate for all, then each --node-rate K=RATE for node K.
node_bps=()
node_rates=()
for ((k = 0; k < nodes; k++)); do node_bps[k]=$rate_bps; node_rates[k]=$rate; done
for spec in "${node_rate_specs[@]}"; do
  [[ $spec =~ ^([0-9]+)=(.+)$ ]] || mbn_die "--node-rate must look like K=RATE, e.g. 1=500mbit (got '$spec')" 2
  k="${BASH_REMATCH[1]}"
  ((k < nodes)) || mbn_die "--node-rate $spec: node $k does not exist (nodes are 0..$((nodes - 1)))" 2
  node_rates[k]="${BASH_REMATCH[2]}"
  node_bps[k]="$(rate_in_bps "${BASH_REMATCH[2]}" "--node-rate $spec")"
done
# delay_in_s(DELAY, OPTION): seconds on stdout, for 2ms, 500us or 0.01s.
delay_in_s() {
  [[ ${1,,} =~ ^([0-9]+(\.[0-9]+)?)(s|ms|us)$ ]] ||
    mbn_die "$2 must look like 2ms, 500us or 0.01s (got '$1')" 2
  local s
  s="$(awk -v n="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" 'BEGIN { printf "%.6f", n * ((u == "s") ? 1 : (u == "ms") ? 1e-3 : 1e-6) }')"
  awk -v s="$s" 'BEGIN { exit !(s <= 1) }' || mbn_die "$2 above 1s would make MPI time out (got '$1')" 2
  echo "$s"
}
if [[ $link_bound == 1 ]]; then
  # The user-space emulator moves every frame itself: beyond 1 Gbit/s its own CPU time, not the
  # rate, would set the time on a 2-core machine.
  for ((k = 0; k < nodes; k++)); do
    ((node_bps[k] > 0 && node_bps[k] <= 1000000000)) || mbn_die "--link-bound shapes NIC rates from 1mbit to 1gbit (node $k: '${node_rates[k]}'); pick a rate in that range" 2
  done
  in_node_rate="${in_node_rate:-100mbit}"
  in_node_bps="$(rate_in_bps "$in_node_rate" --in-node-rate)"
  ((in_node_bps > 0 && in_node_bps <= 1000000000)) || mbn_die "--in-node-rate must be from 1mbit to 1gbit in --link-bound (got '$in_node_rate')" 2
  delay_s="$(delay_in_s "${delay:-2ms}" --delay)"
  in_node_delay_s="$(delay_in_s "${in_node_delay:-1ms}" --in-node-delay)"
  node_delay=()
  for ((k = 0; k < nodes; k++)); do node_delay[k]=$delay_s; done
  for spec in "${node_delay_specs[@]}"; do
    [[ $spec =~ ^([0-9]+)=(.+)$ ]] || mbn_die "--node-delay must look like K=DELAY, e.g. 1=5ms (got '$spec')" 2
    k="${BASH_REMATCH[1]}"
    ((k < nodes)) || mbn_die "--node-delay $spec: node $k does not exist (nodes are 0..$((nodes - 1)))" 2
    node_delay[k]="$(delay_in_s "${BASH_REMATCH[2]}" "--node-delay $spec")"
  done
  linkemu="${MESHBENCH_LINKEMU:-$here/../../build/meshbench-linkemu}"
  [[ -x $linkemu ]] || mbn_die "--link-bound needs meshbench-linkemu, not found at $linkemu; build the project (cmake --build build) or set MESHBENCH_LINKEMU" 2
fi
cluster="${cluster:-${MBN_CLUSTER:-$MBN_DEFAULT_CLUSTER}}"
mbn_validate_name "$cluster"
mbn_validate_state_root

state="$(mbn_state_dir "$cluster")"
if [[ $with_slurm == 1 ]]; then
  # slurmd makes Unix sockets named SPOOL/NODE/NODE_JOBID.STEPID, and a socket path holds at most
  # 108 bytes: a long cluster name or state root makes every job fail to launch ("launch failed
  # requeued held"). Refuse here instead, allowing for 7-digit job ids and the largest step id.
  longest_node="$(mbn_node_ns "$cluster" "$((nodes - 1))")"
  socket="$state/slurm/spool/$longest_node/${longest_node}_9999999.4294967291"
  ((${#socket} <= 108)) ||
    mbn_die "cluster name '$cluster' is too long for Slurm's socket paths under $MBN_STATE_ROOT (${#socket} > 108 bytes); use a shorter --cluster name" 2
fi
started=$SECONDS

# A second cluster of the same name is refused; other names are independent instances.
leftover="$(mbn_existing_namespaces "$cluster")"
if [[ -n $leftover ]]; then
  mbn_die "local cluster '$cluster' already has namespaces ($(tr '\n' ' ' <<<"$leftover")); run down.sh --cluster $cluster first, or pick another --cluster NAME" 2
fi
mkdir -p "$MBN_STATE_ROOT"
# `ip netns add` turns /run/netns into a mount point. When it is not one yet, the marker says a
# local cluster made it so, and the down.sh of the last cluster undoes it.
if ! mountpoint -q "$MBN_NETNS_DIR" 2>/dev/null; then
  : >"$MBN_STATE_ROOT/.netns-mount-created"
fi
if ! mkdir "$state" 2>/dev/null; then
  mbn_die "local cluster '$cluster' is already up or was not torn down ($state exists); run down.sh --cluster $cluster, or pick another --cluster NAME" 2
fi

ok=0
on_exit() {
  local status=$?
  if [[ $ok != 1 ]]; then
    mbn_log "bring-up of '$cluster' failed (status $status); tearing down what was created"
    # The logs go with the state directory: show their ends first (MBN_KEEP_LOGS=DIR keeps them).
    local log
    for log in "$state"/log/*.log; do
      [[ -s $log ]] || continue
      mbn_log "--- last lines of ${log##*/}:"
      tail -n 5 "$log" >&2 || true
    done
    "$here/down.sh" --cluster "$cluster" --quiet --keep-logs "${MBN_KEEP_LOGS:-}" || true
    exit 1
  fi
}
trap on_exit EXIT
trap 'exit 1' INT TERM

# Test hook: tests/integration/cluster_teardown_test.sh makes bring-up fail at a given stage to
# prove that nothing is left behind.
maybe_fail() {
  if [[ ${MBN_TEST_FAIL_AT:-} == "$1" ]]; then
    mbn_log "failing on purpose at stage '$1' (MBN_TEST_FAIL_AT)"
    return 1
  fi
}

mkdir -p "$state/bin" "$state/etc" "$state/log"

# ---- network ----
# A node's TCP congestion control: cubic (Linux's default) where the namespace may choose it,
# else reno. BBR, the host default on some machines, models the path from the traffic before it,
# and through the token bucket that left each second of a transfer in one of two or three states
# (a 2-rank 4 MiB all-reduce: 36 or 50 ms, flipping from second to second in the same process);
# with reno the same runs measured one state within 2% (e2e fidelity case).
steady_congestion_control() {
  local cc
  for cc in cubic reno; do
    nsenter --net="$MBN_NETNS_DIR/$1" -- sh -c "echo $cc > /proc/sys/net/ipv4/tcp_congestion_control" 2>/dev/null && return 0
  done
  mbn_log "note: node $1 keeps the host's TCP congestion control; cross-node timings may flip between link states"
}

bridged_network() {
  bridge_ns="$(mbn_bridge_ns "$cluster")"
  ip netns add "$bridge_ns"
  ip -n "$bridge_ns" link set lo up
  # STP off and no forward delay: ports forward as soon as they are up.
  ip -n "$bridge_ns" link add br0 type bridge stp_state 0 forward_delay 0
  ip -n "$bridge_ns" link set br0 up

  shape() {  # shape(netns, dev, bps): token bucket at the link rate on the device's egress
    [[ $3 -gt 0 ]] || return 0
    # burst must hold one GSO segment (64 KiB) or tbf drops it; 256 KiB is < 2 ms at 1 Gbit/s,
    # too short to show in a transfer that lasts a fraction of a second.
    nsenter --net="$MBN_NETNS_DIR/$1" -- tc qdisc replace dev "$2" root tbf rate "$3" burst 256kb latency 50ms
  }

  : >"$state/nodes"
  : >"$state/hostfile"
  for ((k = 0; k < nodes; k++)); do
    ns="$(mbn_node_ns "$cluster" "$k")"
    addr="$(mbn_node_addr "$k")"
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # The veth is created directly in the two namespaces: no interface ever sits on the root one.
    ip -n "$bridge_ns" link add "v$k" type veth peer name eth0 netns "$ns"
    ip -n "$bridge_ns" link set "v$k" master br0 up
    # IPv4 only: Open MPI would otherwise also try the IPv6 link-local address.
    nsenter --net="$MBN_NETNS_DIR/$ns" -- sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null || true
    steady_congestion_control "$ns"
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    # Node -> bridge is the node's upload, bridge -> node its download: a full-duplex link.
    shape "$ns" eth0 "${node_bps[k]}"
    shape "$bridge_ns" "v$k" "${node_bps[k]}"
    printf '%d %s %s\n' "$k" "$ns" "$addr" >>"$state/nodes"
    printf '%s slots=%d\n' "$addr" "$slots" >>"$state/hostfile"
  done
  # The rates the links are shaped to, for meshbench's live discovery on the nodes (veth reports
  # no speed in sysfs): the helpers export MESHBENCH_LINK_RATES naming this file. tc shapes no
  # delay here, so the file holds rates only; 0 is an unshaped link (--rate none).
  {
    echo "# Link rates of local cluster '$cluster', written by slurm/localcluster/up.sh (docs/slurm.md)."
    echo "# host interface bits_per_second (0: not shaped)"
    for ((k = 0; k < nodes; k++)); do printf '%s eth0 %s\n' "$(mbn_node_ns "$cluster" "$k")" "${node_bps[k]}"; done
  } >"$state/link_rates"
}

# The link-bound network: a namespace per slot, every frame through meshbench-linkemu.
slot_ns() { if (($2 == 0)); then mbn_node_ns "$cluster" "$1"; else printf '%ss%d' "$(mbn_node_ns "$cluster" "$1")" "$2"; fi; }
slot_addr() { printf '%s.%d.%d' "${MBN_SUBNET_PREFIX%.*}" "$2" "$(($1 + 1))"; }
link_bound_network() {
  local k s ns pid
  install -m 0755 "$linkemu" "$state/bin/meshbench-linkemu"
  {
    echo "# meshbench-linkemu configuration of local cluster '$cluster', written by up.sh --link-bound"
    echo "queue_bytes 4194304"
    for ((k = 0; k < nodes; k++)); do echo "node $k ${node_bps[k]} ${node_delay[k]} $in_node_bps $in_node_delay_s"; done
  } >"$state/linkemu.conf"
  : >"$state/nodes"
  : >"$state/slots"
  : >"$state/hostfile"
  for ((k = 0; k < nodes; k++)); do
    for ((s = 0; s < slots; s++)); do
      ns="$(slot_ns "$k" "$s")"
      ip netns add "$ns"
      ip -n "$ns" link set lo up
      nsenter --net="$MBN_NETNS_DIR/$ns" -- sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null || true
      steady_congestion_control "$ns"
      # An idle connection keeps its window (a step's next collective starts at full rate, not in
      # slow start), and socket buffers of 1 MiB bound what one flow can queue at a link.
      nsenter --net="$MBN_NETNS_DIR/$ns" -- sh -c 'echo 0 > /proc/sys/net/ipv4/tcp_slow_start_after_idle &&
        echo "4096 131072 262144" > /proc/sys/net/ipv4/tcp_rmem && echo "4096 65536 131072" > /proc/sys/net/ipv4/tcp_wmem' ||
        mbn_die "cannot set the TCP settings of namespace $ns" 1
      echo "slot $ns $(slot_addr "$k" "$s") $k" >>"$state/linkemu.conf"
      printf '%d %s %s %s\n' "$k" "$ns" "$(slot_addr "$k" "$s")" "$(mbn_node_ns "$cluster" "$k")" >>"$state/slots"
      printf '%s slots=1\n' "$(slot_addr "$k" "$s")" >>"$state/hostfile"
    done
    printf '%d %s %s\n' "$k" "$(mbn_node_ns "$cluster" "$k")" "$(mbn_node_addr "$k")" >>"$state/nodes"
  done
  "$state/bin/meshbench-linkemu" "$state/linkemu.conf" --ready "$state/linkemu.ready" --stats "$state/linkemu.stats" \
    </dev/null >"$state/log/linkemu.log" 2>&1 &
  pid=$!
  echo "$pid" >"$state/linkemu.pid"
  local deadline=$((SECONDS + 20))
  until [[ -s $state/linkemu.ready ]]; do
    kill -0 "$pid" 2>/dev/null || mbn_die "meshbench-linkemu exited during start-up: $(tail -n 1 "$state/log/linkemu.log" 2>/dev/null)" 1
    ((SECONDS < deadline)) || mbn_die "meshbench-linkemu was not ready within 20 s" 1
    sleep 0.1
  done
  for ((k = 0; k < nodes; k++)); do
    for ((s = 0; s < slots; s++)); do
      ns="$(slot_ns "$k" "$s")"
      # NOARP: the emulator routes by IP address and writes each frame's Ethernet address itself.
      ip -n "$ns" link set eth0 mtu 9000 arp off up
      ip -n "$ns" addr add "$(slot_addr "$k" "$s")/16" dev eth0
    done
  done
  # The rates discovery reports: each node's NIC and its in-node path; the delays are the
  # emulator's (linkemu.conf) and left for calibration to find.
  {
    echo "# Link rates of local cluster '$cluster' (link-bound), written by slurm/localcluster/up.sh (docs/slurm.md)."
    echo "# host interface bits_per_second"
    for ((k = 0; k < nodes; k++)); do
      printf '%s eth0 %s\n' "$(mbn_node_ns "$cluster" "$k")" "${node_bps[k]}"
      printf '%s in-node %s\n' "$(mbn_node_ns "$cluster" "$k")" "$in_node_bps"
    done
  } >"$state/link_rates"
}

if [[ $link_bound == 1 ]]; then link_bound_network; else bridged_network; fi
# The nodes' names for every process of the cluster (mbn_in_node and the slurmds bind-mount it
# over /etc/hosts in their own mount namespaces): this machine's entries plus the nodes'.
{
  cat /etc/hosts 2>/dev/null || true
  echo "# meshbench local cluster '$cluster'"
  awk '{ print $3, $2 }' "$state/nodes"
} >"$state/etc/hosts"
# The same nodes by name, for Open MPI rankfiles that name hosts (the mapping exports).
awk -v s="$slots" '{ print $2, "slots=" s }' "$state/nodes" >"$state/hostfile.names"
maybe_fail network

# Open MPI's launcher: rsh-style agent that enters the node's namespace (installed in the state
# directory so its path has no spaces and it finds the node table beside it).
install -m 0755 "$here/rsh-agent.sh" "$state/bin/rsh-agent"

# Reachability: the last node answers node 0. bash's /dev/tcp needs no ping binary; "refused"
# from a port nobody listens on proves the path as well as an answer would.
if ((nodes > 1)); then
  last_addr="$(mbn_node_addr $((nodes - 1)))"
  if ! reply="$(mbn_in_node "$cluster" 0 timeout 5 bash -c "exec 3<>/dev/tcp/$last_addr/9" 2>&1)"; then
    [[ $reply == *refused* ]] || mbn_die "node 0 cannot reach $last_addr through the bridge: ${reply:-timeout}" 1
  fi
fi

# ---- Slurm ----
slurm_conf=""
if [[ $with_slurm == 1 ]]; then
  slurm_conf="$state/etc/slurm.conf"
  mkdir -p "$state/slurm/ctld" "$state/slurm/spool" "$state/slurm/run"
  head_name="$(mbn_node_ns "$cluster" 0)"
  {
    echo "# Written by slurm/localcluster/up.sh for local cluster '$cluster'. Removed by down.sh."
    echo "ClusterName=mbn${cluster}"
    echo "SlurmctldHost=${head_name}($(mbn_node_addr 0))"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    # No munge: the cluster is one machine and root runs everything (docs/slurm.md, "The local test cluster").
    echo "AuthType=auth/none"
    echo "CredType=cred/none"
    # Jobs say --mpi=pmix themselves, as on ParallelCluster (MpiDefault=none there).
    echo "MpiDefault=none"
    # No cgroups: linuxproc tracking and no task plugin work inside namespaces and containers.
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "SchedulerType=sched/backfill"
    # The nodes declare --slots CPUs, whatever this machine has.
    echo "SlurmdParameters=config_overrides"
    echo "ReturnToService=2"
    # Not the default ports (the packaged daemons' ones), though each namespace has its own.
    echo "SlurmctldPort=26817"
    echo "SlurmdPort=26818"
    echo "StateSaveLocation=$state/slurm/ctld"
    echo "SlurmdSpoolDir=$state/slurm/spool/%n"
    echo "SlurmctldPidFile=$state/slurm/run/slurmctld.pid"
    echo "SlurmdPidFile=$state/slurm/run/slurmd-%n.pid"
    echo "SlurmctldLogFile=$state/log/slurmctld.log"
    echo "SlurmdLogFile=$state/log/slurmd-%n.log"
    echo "JobCompType=jobcomp/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "SlurmctldTimeout=30"
    echo "SlurmdTimeout=30"
    echo "InactiveLimit=0"
    echo "KillWait=5"
    echo "MinJobAge=60"
    for ((k = 0; k < nodes; k++)); do
      echo "NodeName=$(mbn_node_ns "$cluster" "$k") NodeAddr=$(mbn_node_addr "$k") CPUs=$slots Boards=1 SocketsPerBoard=1 CoresPerSocket=$slots ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN"
    done
    echo "PartitionName=mbn Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$slurm_conf"
  for ((k = 0; k < nodes; k++)); do mkdir -p "$state/slurm/spool/$(mbn_node_ns "$cluster" "$k")"; done
  export SLURM_CONF="$slurm_conf"

  # slurmctld in node 0's namespace with node 0's hostname (it must match SlurmctldHost).
  mbn_in_node "$cluster" 0 slurmctld -c -i -f "$slurm_conf"
  maybe_fail slurm
  # One slurmd per node: its own network, UTS and mount namespace; a private tmpfs on /tmp keeps
  # the PMIx plugin's per-step directories of different nodes apart. The tmpfs lives only in
  # that mount namespace and goes away with it.
  for ((k = 0; k < nodes; k++)); do
    ns="$(mbn_node_ns "$cluster" "$k")"
    # shellcheck disable=SC2016  # $0 and $1 belong to the inner shell
    nsenter --net="$MBN_NETNS_DIR/$ns" -- unshare --uts --mount --propagation private -- /bin/sh -c \
      'hostname "$0" && mount -t tmpfs -o mode=1777,size=256m mbn-tmp /tmp && mount --bind "$2" /etc/hosts && exec slurmd -N "$0" -f "$1"' \
      "$ns" "$slurm_conf" "$state/etc/hosts"
  done
  # Ready when every node is idle (a few seconds).
  deadline=$((SECONDS + 60))
  while :; do
    states="$(mbn_in_node "$cluster" 0 sinfo -h -N -o '%t' 2>/dev/null | sort | uniq -c | tr -s ' ' || true)"
    idle="$(mbn_in_node "$cluster" 0 sinfo -h -N -t idle -o '%N' 2>/dev/null | wc -l || true)"
    [[ $idle -eq $nodes ]] && break
    pid="$(cat "$state/slurm/run/slurmctld.pid" 2>/dev/null || true)"
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then mbn_die "slurmctld exited during start-up" 1; fi
    ((SECONDS < deadline)) || mbn_die "Slurm nodes did not become idle within 60 s (states:${states:- none}); logs in $state/log" 1
    sleep 0.5
  done
fi

{
  echo "# local cluster '$cluster', written by up.sh; sourced by the other localcluster scripts"
  printf 'MBN_CLUSTER=%q\n' "$cluster"
  printf 'MBN_STATE=%q\n' "$state"
  printf 'MBN_NODES=%q\n' "$nodes"
  printf 'MBN_SLOTS=%q\n' "$slots"
  printf 'MBN_RATE=%q\n' "$rate"
  printf 'MBN_RATE_BPS=%q\n' "$rate_bps"
  printf 'MBN_NODE_RATES=%q\n' "${node_rates[*]}"
  printf 'MBN_NODE_RATES_BPS=%q\n' "${node_bps[*]}"
  printf 'MBN_LINK_RATES=%q\n' "$state/link_rates"
  printf 'MBN_HOSTFILE=%q\n' "$state/hostfile"
  printf 'MBN_HOSTFILE_NAMES=%q\n' "$state/hostfile.names"
  printf 'MBN_SLURM=%q\n' "$with_slurm"
  printf 'MBN_SLURM_CONF=%q\n' "$slurm_conf"
  printf 'MBN_NODE_NAMES=%q\n' "$(cut -d' ' -f2 "$state/nodes" | paste -sd' ')"
  printf 'MBN_LINK_BOUND=%q\n' "$link_bound"
  if [[ $link_bound == 1 ]]; then
    printf 'MBN_NODE_DELAYS_S=%q\n' "${node_delay[*]}"
    printf 'MBN_IN_NODE_RATE_BPS=%q\n' "$in_node_bps"
    printf 'MBN_IN_NODE_DELAY_S=%q\n' "$in_node_delay_s"
  fi
} >"$state/cluster.env"

ok=1
if [[ $link_bound == 1 ]]; then
  mbn_log "local cluster '$cluster' up in $((SECONDS - started)) s, link-bound: $nodes node(s) x $slots slot(s), NICs ${node_rates[*]} with ${node_delay[*]} s each way, in-node $in_node_rate with $in_node_delay_s s"
else
  mbn_log "local cluster '$cluster' up in $((SECONDS - started)) s: $nodes node(s) x $slots slot(s), links shaped to $rate$( ((${#node_rate_specs[@]} > 0)) && echo " (per node: ${node_rates[*]})")$([[ $with_slurm == 1 ]] && echo ", Slurm (partition mbn)")"
fi
mbn_log "  run:  slurm/localcluster/mpirun.sh --cluster $cluster -np $((nodes * slots)) -- CMD ARGS"
[[ $with_slurm == 1 ]] && mbn_log "  jobs: slurm/localcluster/slurm.sh --cluster $cluster sbatch --wait JOB.sbatch"
mbn_log "  down: slurm/localcluster/down.sh --cluster $cluster"
printf '%s\n' "$cluster"
