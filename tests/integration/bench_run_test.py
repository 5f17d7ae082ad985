"""Integration tests of `meshbench run` under mpirun on this machine (CPU slots, MPI backend)."""
import fcntl
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import (TempDir, check, env, expect_bad_input, fail, meshbench, mpirun, rank_pids, read_h5, run,
                    wait_for)

# TP2 x DP2 with EP2 x EDP2 (ETP 1): four non-trivial dimensions on 4 ranks.
LAYOUT = ["--tp", "2", "--ep", "2", "--etp", "1"]
QUICK = ["-b", "1K", "-e", "16K", "-f", "4", "--budget", "0.1", "--min-iters", "10", "--batches", "3"]


def mapping_count(path):
    with read_h5(path) as f:
        return len(f["mappings/table"])


def test_runs_mappings():
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(4, "run", *LAYOUT, *QUICK, "--out", out)
        check(p.returncode == 0, "run failed", p)
        with read_h5(out) as f:
            m = f["measurements"][:]
            names = sorted({x.decode() for x in m["mapping"]})
            check(len(names) >= 3, f"expected >= 3 mappings measured, got {names}", p)
            check(f.attrs["status"] == "complete", "status not complete")
            dims = {x.decode() for x in m["dim"]}
            check({"tp", "dp", "ep"} <= dims, f"dimensions measured: {dims}")
            check((m["wrong"] == 0).all(), "wrong elements in an honest run")
            # Every mapping x dimension x op x size x timing point is there exactly once.
            keys = {(r["mapping"], r["dim"], r["op"], r["bytes"], r["timing"]) for r in m}
            check(len(keys) == len(m), "duplicate rows")
            per_mapping = {n: sum(1 for r in m if r["mapping"].decode() == n) for n in names}
            check(len(set(per_mapping.values())) == 1, f"mappings have different row counts: {per_mapping}")
            check((m["t_median_us"] > 0).all() and (m["busbw_gbps"] > 0).all(), "non-positive times or bandwidths")
            check((m["t_min_us"] <= m["t_median_us"]).all() and (m["t_median_us"] <= m["t_max_us"]).all(), "min <= median <= max broken")
            g = f["group_timings"][:]
            check(len(g) == 2 * len(m), f"expected 2 groups per row, got {len(g)} for {len(m)} rows")
        check("busbw" in p.stdout and "#wrong" in p.stdout, "no nccl-tests-like table on stdout", p)


def test_pandas_reads_measurements():
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(4, "run", *LAYOUT, *QUICK, "--dims", "tp", "--ops", "all_reduce", "--out", out)
        check(p.returncode == 0, "run failed", p)
        code = (
            "import h5py, pandas as pd, sys\n"
            f"f = h5py.File({out!r}, 'r')\n"
            "df = pd.DataFrame(f['/measurements'][:])\n"
            "for c in ['mapping','dim','op','backend','dtype','timing']: df[c] = df[c].str.decode('utf-8')\n"
            "cols = ['mapping','dim','op','backend','dtype','bytes','groups','group_size','iters','timing','t_min_us','t_median_us',"
            "'t_p90_us','t_p99_us','t_max_us','algbw_gbps','busbw_gbps','wrong']\n"
            "missing = [c for c in cols if c not in df.columns]\n"
            "assert not missing, missing\n"
            "assert (df['op'] == 'all_reduce').all() and (df['dim'] == 'tp').all()\n"
            "print(len(df), df['busbw_gbps'].max())\n"
        )
        q = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True)
        check(q.returncode == 0, "pandas could not read /measurements", q)


def test_corrupt_result_is_detected():
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(4, "run", *LAYOUT, *QUICK, "--dims", "tp", "--ops", "all_reduce", "--timing", "per_iteration", "--out", out)
        check(p.returncode == 0, "run failed", p)
        with read_h5(out) as f:
            first = f["mappings/table"][0]["name"].decode()
        out2 = os.path.join(d, "bad.h5")
        p = mpirun(4, "run", *LAYOUT, *QUICK, "--dims", "tp", "--ops", "all_reduce", "--timing", "per_iteration",
                   "--test-corrupt", f"{first}:tp:all_reduce", "--out", out2)
        check(p.returncode == 1, f"a wrong result must fail the run (exit 1), got {p.returncode}", p)
        check("WRONG" in p.stdout, "the table does not flag the wrong result", p)
        with read_h5(out2) as f:
            m = f["measurements"][:]
            bad = [r for r in m if r["mapping"].decode() == first]
            good = [r for r in m if r["mapping"].decode() != first]
            check(all(r["wrong"] > 0 for r in bad), "the corrupted point is not counted as wrong")
            check(all(r["wrong"] == 0 for r in good), "other mappings report wrong elements")


def start_run(out, extra):
    cmd = ["mpirun", "-np", "4", meshbench(), "run", *LAYOUT, "-b", "1K", "-e", "64K", "--budget", "0.5",
           "--watchdog", "4", "--watchdog-grace", "4", "--out", out, *extra]
    return subprocess.Popen(cmd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def rows_in(path):
    try:
        with read_h5(path) as f:
            return len(f["measurements"])
    except Exception:  # noqa: BLE001 - not written yet
        return 0


def fault_then_resume(sig):
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = start_run(out, [])
        check(wait_for(lambda: rows_in(out) >= 3, 120), "run produced no rows")
        victims = rank_pids(2, under=p.pid)
        check(len(victims) == 1, f"could not find rank 2: {victims}")
        t0 = time.time()
        os.kill(victims[0], sig)
        try:
            stdout, stderr = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            for pid in [x for r in range(4) for x in rank_pids(r, under=p.pid)]:
                os.kill(pid, signal.SIGKILL)
            p.kill()
            fail(f"the run did not end within 60 s of {signal.Signals(sig).name}")
        elapsed = time.time() - t0
        check(p.returncode != 0, f"the run exited 0 after {signal.Signals(sig).name}")
        check(elapsed < 30, f"the run took {elapsed:.1f} s to end (watchdog limit 4 s + grace)")
        if sig == signal.SIGSTOP:
            check("never arrived" in stderr and "rank 2" in stderr, f"message does not name rank 2:\n{stderr[-3000:]}")
            check("mapping '" in stderr, f"message does not name the point:\n{stderr[-3000:]}")
        with read_h5(out) as f:  # readable, and keeps what completed
            n = len(f["measurements"])
            status = f.attrs["status"]
            failures = f["failures"][:]
        check(n >= 3, f"completed rows lost: {n}")
        if sig == signal.SIGSTOP:
            check(status == "failed" and len(failures) == 1, f"status {status}, failures {len(failures)}")
            check(b"rank 2" in failures[0]["message"], "failure record does not name rank 2")
        r = subprocess.run(["mpirun", "-np", "4", meshbench(), "run", *LAYOUT, "-b", "1K", "-e", "64K", "--budget", "0.5",
                            "--resume", out], env=env(), capture_output=True, text=True, timeout=300)
        check(r.returncode == 0, "--resume failed", r)
        check("resuming" in r.stdout, "resume did not say it skipped completed points", r)
        with read_h5(out) as f:
            m = f["measurements"][:]
            check(f.attrs["status"] == "complete", "resumed run not complete")
            keys = [(x["mapping"], x["dim"], x["op"], x["bytes"], x["timing"], x["concurrency"]) for x in m]
            check(len(keys) == len(set(keys)), "resume measured a completed point again")
        full = os.path.join(d, "full.h5")
        q = subprocess.run(["mpirun", "-np", "4", meshbench(), "run", *LAYOUT, "-b", "1K", "-e", "64K", "--budget", "0.1",
                            "--out", full], env=env(), capture_output=True, text=True, timeout=300)
        check(q.returncode == 0, "reference run failed", q)
        with read_h5(full) as f:
            check(len(f["measurements"]) == len(keys), f"resumed file has {len(keys)} rows, a full run {len(f['measurements'])}")


def test_sigkill_then_resume():
    fault_then_resume(signal.SIGKILL)


def test_sigstop_then_resume():
    fault_then_resume(signal.SIGSTOP)


def test_rounds_then_resume():
    """--rounds 3: every point measured in three rounds, each round's median kept beside the
    pooled samples; killed in the last round and resumed, the file ends complete with every
    point once and three round medians each; resuming with another --rounds is refused."""
    # Two mappings and three sizes: every point is written only in the last round.
    rounds = ["--rounds", "3", "--min-iters", "10", "--batches", "3", "--top", "2", "-e", "16K", "-f", "4"]
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        # Rank 2 kills itself once 3 points of the last round are measured: a place in the run
        # that does not depend on how fast the machine is.
        killed = subprocess.run(["mpirun", "-np", "4", meshbench(), "run", *LAYOUT, "-b", "1K", "--budget", "0.5", "--watchdog", "4",
                                 "--watchdog-grace", "4", *rounds, "--out", out], env=dict(env(), MESHBENCH_TEST_KILL_AFTER="3:2"),
                                capture_output=True, text=True, timeout=600)
        partial = rows_in(out)
        check(killed.returncode != 0 and 1 <= partial <= 3, f"the run killed in its last round ended {killed.returncode} with {partial} rows", killed)
        wrong = subprocess.run(["mpirun", "-np", "4", meshbench(), "run", *LAYOUT, "-b", "1K", "--budget", "0.5", *rounds[2:],
                                "--rounds", "2", "--resume", out], env=env(), capture_output=True, text=True, timeout=300)
        expect_bad_input(wrong, "--rounds 3", launched=True)
        r = subprocess.run(["mpirun", "-np", "4", meshbench(), "run", *LAYOUT, "-b", "1K", "--budget", "0.5", *rounds,
                            "--resume", out], env=env(), capture_output=True, text=True, timeout=600)
        check(r.returncode == 0, "--resume of a rounds run failed", r)
        with read_h5(out) as f:
            m = f["measurements"][:]
            rm = f["round_medians"][:]
            check(f.attrs["status"] == "complete" and int(f.attrs["rounds"]) == 3, "not complete, or the rounds not recorded")
            samples = f["samples"][:]
        keys = [(x["mapping"], x["dim"], x["op"], x["bytes"], x["timing"], x["concurrency"]) for x in m]
        check(len(keys) == len(set(keys)) and len(keys) > partial, f"{len(keys)} rows ({len(set(keys))} distinct), {partial} before the kill")
        per_point = {}
        for x in rm:
            per_point.setdefault((x["mapping"], x["dim"], x["op"], x["bytes"], x["timing"], x["concurrency"]), []).append(int(x["round"]))
        check(set(per_point) == set(keys) and all(sorted(v) == [0, 1, 2] for v in per_point.values()),
              "a point lacks one of its three round medians")
        for x in m[:5]:
            if x["timing"] != b"per_iteration":
                continue
            n = sum(1 for s in samples if (s["mapping"], s["dim"], s["op"], s["bytes"], s["timing"]) ==
                    (x["mapping"], x["dim"], x["op"], x["bytes"], x["timing"]))
            check(n == int(x["iters"]) and n >= 30, f"pooled samples {n}, iters {x['iters']}: three rounds of at least 10")


# Reopens the file in a tight loop, holding it 50 ms at a time: a reader as greedy as can be.
GREEDY_READER = """
import h5py, os, sys, time
path, stop, reads = sys.argv[1], sys.argv[2], 0
while not os.path.exists(stop):
    try:
        with h5py.File(path, "r") as f:
            len(f["measurements"])
            time.sleep(0.05)
        reads += 1
    except Exception:  # not created yet, or the writer holds it
        time.sleep(0.001)
print(reads)
"""


def test_reader_during_the_run():
    """A reader that keeps reopening the file while the run writes it neither stops the run
    nor costs it a point: the run ends complete with every point once. A writer that never
    lets go makes `report` refuse with one line (exit 2)."""
    with TempDir() as d:
        out, stop = os.path.join(d, "run.h5"), os.path.join(d, "stop")
        reader = subprocess.Popen(["/usr/bin/python3", "-c", GREEDY_READER, out, stop], stdout=subprocess.PIPE, text=True)
        p = mpirun(4, "run", *LAYOUT, *QUICK, "--out", out)
        open(stop, "w").close()
        reads = int(reader.communicate(timeout=60)[0])
        check(p.returncode == 0, "the run failed beside a reader", p)
        check(reads > 0, "the reader never read the file while the run wrote it")
        check(p.stderr.count("writes on without HDF5's lock") <= 1, "the writer's note about the reader came more than once", p)
        with read_h5(out) as f:
            m = f["measurements"][:]
            check(f.attrs["status"] == "complete", "status not complete")
        keys = {(r["mapping"], r["dim"], r["op"], r["bytes"], r["timing"]) for r in m}
        per_mapping = {n: sum(1 for r in m if r["mapping"] == n) for n in {r["mapping"] for r in m}}
        check(len(keys) == len(m) and len(per_mapping) >= 3 and len(set(per_mapping.values())) == 1,
              f"{len(m)} rows ({len(keys)} distinct), per mapping {per_mapping}")
        # A program that holds the file open for writing, as HDF5 locks it, makes `report` wait
        # and then refuse with one line; let go, the same file reads.
        with open(out, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            expect_bad_input(run("report", out), "held open for writing")
        r = run("report", out)
        check(r.returncode == 0, "report failed once the lock was gone", r)


def megatron_groups(order, sizes, dim, world):
    """Megatron-Core's groups of `dim`: ranks that differ only in its coordinate, the order's
    first name varying fastest; groups sorted by their first rank, members by `dim`'s coordinate."""
    names = order.split("-")
    stride, strides = 1, {}
    for name in names:
        strides[name] = stride
        stride *= sizes.get(name, 1)
    groups = {}
    for r in range(world):
        coord = {name: (r // strides[name]) % sizes.get(name, 1) for name in names}
        key = tuple(coord[name] for name in names if name != dim)
        groups.setdefault(key, []).append((coord[dim], r))
    return sorted([[r for _, r in sorted(g)] for g in groups.values()])


def test_send_recv_across_pp():
    """PP = 2: send_recv measured on the pipeline groups with the MPI backend."""
    with TempDir() as d:
        out = os.path.join(d, "pp.h5")
        p = mpirun(4, "run", "--tp", "2", "--pp", "2", "--ops", "send_recv", "--sizes", "1K,64K", "--no-doctor",
                   "--budget", "0.1", "--min-iters", "10", "--batches", "3", "--out", out)
        check(p.returncode == 0, "run failed", p)
        with read_h5(out) as f:
            check(f.attrs["status"] == "complete", "status not complete")
            lay = f["layout"].attrs
            check((int(lay["world"]), int(lay["tp"]), int(lay["pp"]), int(lay["dp"])) == (4, 2, 2, 1), f"layout {dict(lay)}")
            order = lay["order"].decode() if isinstance(lay["order"], bytes) else str(lay["order"])
            expected = megatron_groups(order, {"tp": 2, "pp": 2}, "pp", 4)
            if order == "tp-cp-ep-dp-pp":
                check(expected == [[0, 2], [1, 3]], f"the test's own group math is off: {expected}")
            names = [r["name"].decode() for r in f["mappings/table"][:]]
            check(f"order:{order}" in names, f"the layout's own order is not among the mappings {names}")
            for i, name in enumerate(names):
                pp = f[f"mappings/M{i}/groups/pp"][:].tolist()
                tp = f[f"mappings/M{i}/groups/tp"][:].tolist()
                # Two stages per group, every rank in one group, each meeting each TP group once.
                check(sorted(r for grp in pp for r in grp) == [0, 1, 2, 3] and all(len(grp) == 2 for grp in pp), f"{name}: pp groups {pp}")
                check(all(len(set(a) & set(b)) == 1 for a in pp for b in tp), f"{name}: pp groups {pp} not orthogonal to tp {tp}")
                if name.startswith("order:"):
                    want = megatron_groups(name[len("order:"):], {"tp": 2, "pp": 2}, "pp", 4)
                    check(pp == want, f"{name}: pp groups {pp}, Megatron's are {want}")
                if name == f"order:{order}":
                    check(pp == expected, f"{name}: pp groups {pp}, expected {expected}")
            m = f["measurements"][:]
            rows = [r for r in m if r["dim"].decode() == "pp"]
            check(len(rows) > 0, f"no pp rows; dims measured: {sorted({r['dim'].decode() for r in m})}")
            for r in rows:
                what = f"{r['mapping'].decode()} {r['bytes']} {r['timing'].decode()}"
                check(r["op"].decode() == "send_recv", f"pp measured {r['op']}")
                check(r["backend"].decode() == "mpi", f"backend {r['backend']}")
                check(int(r["group_size"]) == 2 and int(r["groups"]) == 2, f"{what}: groups {r['groups']} x {r['group_size']}")
                check(int(r["wrong"]) == 0, f"{what}: {r['wrong']} wrong elements")
                check(r["busbw_gbps"] > 0 and r["t_median_us"] > 0, f"{what}: busbw {r['busbw_gbps']}, median {r['t_median_us']}")
                # send_recv's bus factor is 1: busbw is algbw.
                check(abs(r["busbw_gbps"] - r["algbw_gbps"]) <= 1e-9 * r["algbw_gbps"], f"{what}: busbw {r['busbw_gbps']} != algbw {r['algbw_gbps']}")
            for name in names:
                sizes = sorted({int(r["bytes"]) for r in rows if r["mapping"].decode() == name})
                check(sizes == [1024, 65536], f"mapping {name}: pp sizes {sizes}")
            # Both pipeline groups ran and were timed at every point.
            g = [r for r in f["group_timings"][:] if r["dim"].decode() == "pp"]
            per_point = {}
            for r in g:
                per_point.setdefault((r["mapping"], r["bytes"], r["timing"]), set()).add(int(r["group"]))
            check(len(per_point) == len(rows), f"{len(per_point)} pp points in group_timings, {len(rows)} in measurements")
            check(all(groups == {0, 1} for groups in per_point.values()), f"pp groups timed: {per_point}")


def test_machine_state_remeasures():
    """The machine-state probe, driven by canned readings (MESHBENCH_TEST_STATE_NS, the same on
    every rank): a visit whose reading after it is 5x the best is measured again once the state
    is back, only the second attempt is kept, and every attempt is in /state_probes. Without
    budget the visit is kept as it was; with --machine-state off nothing is probed."""
    one = ["--dims", "tp", "--ops", "all_reduce", "--timing", "per_iteration", "-b", "1K", "-e", "4K", "-f", "4",
           "--budget", "0.05", "--min-iters", "5"]
    # Readings in order: visit 1 before/after, visit 2 before/after (500: disturbed), two polls
    # while waiting (500, then 100: back), visit 2 again before/after; then 100 for ever.
    readings = "100,100,100,500,500,100"
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(2, "run", "--tp", "2", *one, "--out", out, env=env(MESHBENCH_TEST_STATE_NS=readings))
        check(p.returncode == 0, "run failed", p)
        check("1 visit(s) measured again" in p.stdout, "the console does not say a visit was measured again", p)
        with read_h5(out) as f:
            m = f["measurements"][:]
            s = f["state_probes"][:]
        check(len(m) == 2, f"expected 2 points (1K, 4K), got {len(m)}")
        rows = [(int(r["bytes"]), int(r["attempt"]), bool(r["kept"]), round(float(r["ratio"]), 3), float(r["core_to_core_ns"])) for r in s]
        first, second = sorted(m["bytes"])
        expected = [(int(first), 1, True, 1.0, 100.0), (int(second), 1, False, 5.0, 500.0), (int(second), 2, True, 1.0, 100.0)]
        check(sorted(rows) == sorted(expected), f"state probes {rows}, expected {expected}")
        out2 = os.path.join(d, "nobudget.h5")
        p = mpirun(2, "run", "--tp", "2", *one, "--state-budget", "0", "--out", out2, env=env(MESHBENCH_TEST_STATE_NS=readings))
        check(p.returncode == 0, "run without budget failed", p)
        check("1 kept although disturbed" in p.stdout, "a disturbed visit kept without budget is not reported", p)
        with read_h5(out2) as f:
            s = f["state_probes"][:]
        check(len(s) == 2 and bool(s["kept"].all()), f"without budget every visit is kept once: {s}")
        out3 = os.path.join(d, "off.h5")
        p = mpirun(2, "run", "--tp", "2", *one, "--machine-state", "off", "--out", out3, env=env(MESHBENCH_TEST_STATE_NS=readings))
        check(p.returncode == 0, "run with --machine-state off failed", p)
        with read_h5(out3) as f:
            check("state_probes" not in f, "--machine-state off still probed")
        expect_bad_input(mpirun(2, "run", "--tp", "2", *one, "--out", os.path.join(d, "bad.h5"),
                                env=env(MESHBENCH_TEST_STATE_NS="55,fast")), "MESHBENCH_TEST_STATE_NS", launched=True)
        expect_bad_input(run("run", "--out", os.path.join(d, "bad.h5"), "--machine-state", "maybe"), "--machine-state")
        expect_bad_input(run("run", "--out", os.path.join(d, "bad.h5"), "--state-budget", "-1"), "--state-budget")
        check(not os.path.exists(os.path.join(d, "bad.h5")), "a bad input left an output file")


def test_nic_counters_canned_efa():
    """The NIC counters from canned EFA trees (tests/data/nic-counters, MESHBENCH_TEST_COUNTER_ROOTS:
    the host's readings in turn): the retransmit and the drop counted between the second point's
    readings are that point's, in /nic_counters and in the report; --no-nic-counters reads
    nothing; a --counter-root that is not a folder is one line, exit 2, and no file."""
    one = ["--dims", "tp", "--ops", "all_reduce", "--timing", "per_iteration", "--sizes", "1K,4K", "--budget", "0.05", "--min-iters", "5",
           "--machine-state", "off", "--no-doctor"]
    trees = os.path.join(os.environ.get("MESHBENCH_TEST_DATA", ""), "nic-counters", "efa")
    roots = ",".join(os.path.join(trees, t) for t in ("t0", "t1", "t1", "t2"))
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(2, "run", "--tp", "2", *one, "--out", out, env=env(MESHBENCH_TEST_COUNTER_ROOTS=roots))
        check(p.returncode == 0, "run failed", p)
        with read_h5(out) as f:
            c = f["nic_counters"][:]
        rows = {(int(r["bytes"]), r["nic"].decode()): r for r in c}
        check(sorted(rows) == sorted((b, n) for b in (1024, 4096) for n in ("efa_0:1", "efa_1:1", "eth0")), f"rows {sorted(rows)}")
        check(int(rows[(1024, "efa_0:1")]["retrans_packets"]) == 0, "a retransmit was put on the first point")
        check(int(rows[(4096, "efa_0:1")]["retrans_packets"]) == 1, "the second point's retransmit is missing")
        check(int(rows[(4096, "efa_1:1")]["rx_dropped"]) == 1, "the second point's drop is missing")
        check(int(rows[(1024, "efa_0:1")]["tx_bytes"]) == 1 << 20, "efa_0 sent 1 MiB during the first point")
        check(int(rows[(1024, "eth0")]["retrans_packets"]) == -1, "Ethernet has no retransmit counter")
        rep = run("report", out, "--format", "json")
        check(rep.returncode == 0, "report failed", rep)
        events = json.loads(rep.stdout)["nic_counters"]["events"]
        got = sorted((e["bytes"], e["nic"], e["what"]) for e in events)
        check(got == [(4096, "efa_0:1", "1 retransmitted packet (8192 bytes)"), (4096, "efa_1:1", "1 dropped on receive")], f"events {got}")
        text = run("report", out)
        named = [l for l in text.stdout.splitlines() if "retransmits and drops:" in l]
        check(len(named) == 2 and all("tp all_reduce 4 KiB per_iteration (concurrent): " in l for l in named)
              and any(l.endswith("efa_0:1: 1 retransmitted packet (8192 bytes)") for l in named),
              "the text report does not name the point of the retransmit", text)
        csv = run("report", out, "--format", "csv")
        events = [l for l in csv.stdout.splitlines() if l.startswith("nic_event,")]
        check(len(events) == 2 and all(",4096,event," in l for l in events) and any("1 retransmitted packet (8192 bytes)" in l for l in events),
              "the CSV report does not carry the retransmit on its point", csv)
        out2 = os.path.join(d, "off.h5")
        p = mpirun(2, "run", "--tp", "2", *one, "--no-nic-counters", "--out", out2, env=env(MESHBENCH_TEST_COUNTER_ROOTS=roots))
        check(p.returncode == 0, "run with --no-nic-counters failed", p)
        with read_h5(out2) as f:
            check("nic_counters" not in f, "--no-nic-counters still read the counters")
        bad = os.path.join(d, "bad.h5")
        expect_bad_input(mpirun(2, "run", "--tp", "2", *one, "--counter-root", os.path.join(d, "nowhere"), "--out", bad), "--counter-root",
                         launched=True)
        expect_bad_input(mpirun(2, "run", "--tp", "2", *one, "--out", bad,
                                env=env(MESHBENCH_TEST_COUNTER_ROOTS=os.path.join(os.environ.get("MESHBENCH_TEST_DATA", ""), "nic-counters", "bad"))),
                         "is not a counter", launched=True)
        check(not os.path.exists(bad), "a bad counter root left an output file")


def test_bad_input():
    with TempDir() as d:
        out = os.path.join(d, "x.h5")
        expect_bad_input(run("run", "--out", out, "--ops", "all_sum"), "all_sum")
        expect_bad_input(run("run", "--out", out, "--dims", "xp"), "xp")
        expect_bad_input(run("run", "--out", out, "-b", "12Q"), "12Q")
        expect_bad_input(run("run", "--out", out, "--sizes", "8,,x"), "size")
        expect_bad_input(run("run", "--out", out, "--bogus"), "bogus")
        expect_bad_input(run("run", "--out", out, "--rank-time", "median"), "--rank-time")
        expect_bad_input(run("run", "--out", out, "--a2av-skew", "-1"), "--a2av-skew must be 0 or more")
        expect_bad_input(mpirun(4, "run", *LAYOUT, "--out", "/nonexistent-dir/x.h5"), "does not exist", launched=True)
        # A plan for 8 slots launched on 4 ranks.
        expect_bad_input(mpirun(4, "run", "--node-type", "p4d.24xlarge", "--nodes", "1", "--tp", "2", "--out", out), "8 slots", launched=True)
        expect_bad_input(mpirun(4, "run", *LAYOUT, *QUICK, "--out", out, env=env(MESHBENCH_MPI_WAIT_SLEEP_US="fast")),
                         "MESHBENCH_MPI_WAIT_SLEEP_US='fast'", launched=True)
        # A parse error under mpirun: every rank starts MPI first, so the line is said (a rank that
        # exited at once could make mpirun end rank 0 before it printed); on one rank only (rank 3
        # alone is given the bad option), that rank says it and the others end with it.
        expect_bad_input(mpirun(4, "run", *LAYOUT, *QUICK, "--out", out, "--bogus"), "bogus", launched=True)
        one_rank = ('if [ "$OMPI_COMM_WORLD_RANK" = 3 ]; then set -- "$@" --bogus-on-rank-3; fi; exec "$0" "$@"')
        p = subprocess.run(["mpirun", "-np", "4", "sh", "-c", one_rank, meshbench(), "run", *LAYOUT, *QUICK, "--out", out],
                           env=env(), capture_output=True, text=True, timeout=300)
        expect_bad_input(p, "bogus-on-rank-3", launched=True)
        check(not os.path.exists(out), "a bad input left an output file")
        open(out, "w").write("precious")
        expect_bad_input(mpirun(4, "run", *LAYOUT, *QUICK, "--out", out), "exists", launched=True)
        check(open(out).read() == "precious", "an existing file was overwritten")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    print("PASS", sys.argv[1])
