"""NIC counters on the local test cluster: 2 emulated nodes x 1 slot behind 1 Gbit/s links, so
that every byte between the two ranks crosses each node's eth0 (a veth pair into the bridge).
`meshbench run` measures a cross-node all-reduce (dp) and all-to-all (ep) at 1 and 4 MiB with the
NIC counters read around every point; `meshbench report --format json` sets each node's eth0
against the bytes the op moves off the node. Asserted, per point and node:
  - the payload eth0 sent (counted bytes less 66 header bytes per counted frame) is within 5% of
    the model's bytes (all-reduce of N over 2 ranks: N per op; all-to-all: N/2 per op), times
    the ops the point ran (warm-up, timed, check);
  - the payload it received is within 5% of what the other node sent;
  - the counted bytes exceed the payload (the headers are there to take off).
The veth counts GSO super-packets (up to 64 KiB with one set of headers), so the headers are
under 0.3% of the counted bytes there; the run is repeated with each node's eth0 held to one
segment per packet (gso_max_segs 1), where they are 4.4-5.8%: the payload must still agree within
5%, and the counted bytes must be at least 3% over it.
Byte counts are not timings: the budget only decides how many ops run, and the model counts
them. Usage: cluster_nic_counters_test.py MESHBENCH CLUSTER_NAME"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import check  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LC = os.path.join(ROOT, "slurm", "localcluster")
SKIP = 77
TOLERANCE = 0.05
# Not under /tmp: the emulated nodes may have /tmp folders of their own.
WORK_ROOT = "/var/lib/meshbench/nic-counters"


def sh(*cmd, timeout=600):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)


def main():
    meshbench, name = sys.argv[1], sys.argv[2]
    can = sh(os.path.join(LC, "up.sh"), "--can-run")
    if can.returncode != 0:
        print("SKIP:", can.stdout.strip() or can.stderr.strip())
        sys.exit(SKIP)
    work = os.path.join(WORK_ROOT, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    up = sh(os.path.join(LC, "up.sh"), "2", "--slots", "1", "--rate", "1gbit", "--cluster", name)
    check(up.returncode == 0, "up.sh failed", up)
    try:
        check_counters(measure(meshbench, name, os.path.join(work, "gso.h5")), 0)
        for k in (0, 1):
            ns = f"mbn-{name}-n{k}"
            one = sh("ip", "-n", ns, "link", "set", "eth0", "gso_max_size", "1448", "gso_max_segs", "1")
            if one.returncode != 0:
                print(f"note: cannot hold {ns}'s eth0 to one segment per packet ({one.stderr.strip()}); the MTU-sized half is left out")
                return
        check_counters(measure(meshbench, name, os.path.join(work, "mtu.h5")), 0.03)
    finally:
        down = sh(os.path.join(LC, "down.sh"), "--cluster", name, "--quiet")
        if down.returncode != 0:
            print(down.stdout, down.stderr)
        shutil.rmtree(work, ignore_errors=True)


def measure(meshbench, name, out):
    run = sh(os.path.join(LC, "mpirun.sh"), "--cluster", name, "-np", "2", "--", meshbench, "run", "--ep", "2", "--dims", "dp,ep", "--ops",
             "all_reduce,all_to_all", "--sizes", "1M,4M", "--timing", "per_iteration", "--min-iters", "5", "--budget", "0.5", "--no-doctor",
             "--out", out)
    check(run.returncode == 0, "meshbench run across the emulated nodes failed", run)
    rep = sh(meshbench, "report", out, "--format", "json")
    check(rep.returncode == 0, "meshbench report failed", rep)
    return json.loads(rep.stdout)["nic_counters"]


def check_counters(nic, header_share):
    """Every node's eth0 against the model; the counted bytes at least `header_share` over the payload."""
    rows = [r for r in nic["rows"] if r["nic"] == "eth0"]
    points = {}
    for r in rows:
        points.setdefault((r["mapping"], r["dim"], r["op"], r["bytes"], r["round"], r["attempt"]), {})[r["host"]] = r
    ops = {key[2] for key in points}
    check(ops == {"all_reduce", "all_to_all"}, f"expected eth0 rows for all_reduce and all_to_all, got {sorted(ops)}: {nic}")
    check(len(points) >= 4, f"expected 4 points (2 ops x 2 sizes) with eth0 rows, got {len(points)}: {nic}")
    for key, by_host in sorted(points.items()):
        check(len(by_host) == 2, f"{key}: expected eth0 of both nodes, got {sorted(by_host)}")
        for host, r in sorted(by_host.items()):
            other = next(o for h, o in by_host.items() if h != host)
            check(r["model"] != "none" and r["expected_tx_bytes"], f"{key} {host}: not modelled: {r}")
            expected = r["expected_tx_bytes"]
            sent = r["tx_payload_bytes"] / expected
            received = r["rx_payload_bytes"] / other["expected_tx_bytes"]
            check(abs(sent - 1) <= TOLERANCE, f"{key} {host}: eth0 sent {r['tx_payload_bytes']:.0f} payload bytes, the model {expected:.0f} "
                  f"({sent:.4f}x): {r}")
            check(abs(received - 1) <= TOLERANCE, f"{key} {host}: eth0 received {r['rx_payload_bytes']:.0f} payload bytes, the other node "
                  f"sends {other['expected_tx_bytes']:.0f} ({received:.4f}x): {r}")
            check(r["tx_bytes"] > r["tx_payload_bytes"] * (1 + header_share), f"{key} {host}: headers under {header_share:.0%}: {r}")
            print(f"ok: {key[2]} {key[3] >> 20} MiB x {r['ops']} ops, {host} eth0: sent {sent:.4f}x, received {received:.4f}x the model "
                  f"(headers {(r['tx_bytes'] - r['tx_payload_bytes']) / r['tx_bytes'] * 100:.2f}% of the counted bytes)")
    for e in nic["events"]:
        print("note:", e)


if __name__ == "__main__":
    main()
