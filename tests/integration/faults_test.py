"""Faults on the local test cluster (issue 13): 2 emulated nodes x 2 slots, links shaped to
1 Gbit/s, `meshbench run` through mpirun with the namespace launcher. Each case starts a run,
injects one fault into node 1 (or the results filesystem) mid-run, and checks what a user needs:
  - the run ends within the watchdog's limit (or is refused up front) with a message that names
    the node, the rank and the point;
  - nothing already measured is lost: the file opens, every point printed before the fault is
    there with all its samples and group rows;
  - once the fault is lifted, `run --resume` completes the file with every point exactly once.
Packet loss is not a failure: the run must complete without a false alarm.
Each case prints one line `FAULT|case|detection s|message|rows kept|resume` for docs/reliability.md.
Usage: faults_test.py CASE BUILD_DIR CLUSTER_NAME"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import check, fail, read_h5  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LC = os.path.join(ROOT, "slurm", "localcluster")
SKIP = 77
# Off /tmp, as for the other cluster tests.
WORK_ROOT = "/var/lib/meshbench/faults"
WATCHDOG_S = 4
# TP2 x DP2 on 4 ranks; 2 ops x 4 sizes per dimension, 3 mappings: 48 points, about 10 s.
RUN_ARGS = ["--tp", "2", "--top", "3", "-b", "1K", "-e", "64K", "-f", "4", "--ops", "all_reduce,all_gather",
            "--timing", "per_iteration", "--budget", "0.1", "--min-iters", "10", "--no-doctor",
            "--watchdog", str(WATCHDOG_S), "--watchdog-grace", str(WATCHDOG_S)]
POINTS_PER_MAPPING = 2 * 2 * 4  # dims x ops x sizes
ROW = re.compile(r"^\s+\S+ \S*B\s+\w+\s+per_iteration\s")


def with_option(args, name, value):
    """`args` with option `name` set to `value` (replaced, or added)."""
    out = list(args)
    if name in out:
        out[out.index(name) + 1] = value
    else:
        out += [name, value]
    return out


def sh(*cmd, timeout=120, check_rc=False):
    p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if check_rc:
        check(p.returncode == 0, f"{' '.join(cmd)} failed", p)
    return p


def node_ns(cluster, k):
    return f"mbn-{cluster}-n{k}"


def ns_pids(cluster, k):
    p = sh("ip", "netns", "pids", node_ns(cluster, k))
    return [int(x) for x in p.stdout.split()]


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def rank_of(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for item in f.read().split(b"\0"):
                if item.startswith(b"OMPI_COMM_WORLD_RANK="):
                    return int(item.split(b"=", 1)[1])
    except OSError:
        pass
    return None


def in_node(cluster, k, *cmd):
    return sh("nsenter", f"--net=/var/run/netns/{node_ns(cluster, k)}", "--", *cmd)


class Run:
    """A `meshbench run` under the cluster's mpirun, its output lines timestamped as they come."""

    def __init__(self, build, cluster, args, np=4):
        self.cluster = cluster
        cmd = [os.path.join(LC, "mpirun.sh"), "--cluster", cluster, "-np", str(np), "--", os.path.join(build, "meshbench"), "run", *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.out, self.err = [], []
        self.threads = [threading.Thread(target=self._read, args=(self.proc.stdout, self.out), daemon=True),
                        threading.Thread(target=self._read, args=(self.proc.stderr, self.err), daemon=True)]
        for t in self.threads:
            t.start()

    @staticmethod
    def _read(stream, into):
        for line in stream:
            into.append((time.time(), line.rstrip("\n")))

    def rows_printed(self):
        return sum(1 for _, line in list(self.out) if ROW.match(line))

    def first(self, needle, after=0.0):
        for t, line in list(self.err):
            if t >= after and needle in line:
                return t, line
        return None

    def wait(self, timeout):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        for t in self.threads:
            t.join(timeout=5)
        return self.proc.returncode

    def stderr(self):
        return "\n".join(line for _, line in self.err)

    def stdout(self):
        return "\n".join(line for _, line in self.out)


def wait_for(predicate, timeout, step=0.1):
    end = time.time() + timeout
    while time.time() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None


def cluster_up(name):
    can = sh(os.path.join(LC, "up.sh"), "--can-run")
    if can.returncode != 0:
        print("SKIP:", can.stdout.strip() or can.stderr.strip())
        sys.exit(SKIP)
    up = sh(os.path.join(LC, "up.sh"), "2", "--slots", "2", "--rate", "1gbit", "--cluster", name)
    check(up.returncode == 0, "up.sh failed", up)


class Cluster:
    """A 2 x 2 cluster and a work folder for one case, both gone afterwards (mounts too)."""

    def __init__(self, name):
        self.name = name
        self.work = os.path.join(WORK_ROOT, name)
        self.mounts = []

    def __enter__(self):
        self.__exit__()
        os.makedirs(self.work)
        cluster_up(self.name)
        return self

    def __exit__(self, *exc):
        for k in (0, 1):  # a frozen node must run again before it can be stopped
            for pid in ns_pids(self.name, k) if os.path.exists(f"/var/run/netns/{node_ns(self.name, k)}") else []:
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass
        down = sh(os.path.join(LC, "down.sh"), "--cluster", self.name, "--quiet")
        if down.returncode != 0:
            print(down.stdout, down.stderr)
        for m in reversed(self.mounts):
            sh("umount", "-l", m)
        self.mounts = []
        if not os.environ.get("MESHBENCH_FAULTS_KEEP"):
            shutil.rmtree(self.work, ignore_errors=True)

    def mount(self, path, *args):
        os.makedirs(path, exist_ok=True)
        sh("mount", *args, path, check_rc=True)
        self.mounts.append(path)


# ---- checks shared by the cases ----

def measured_keys(f):
    m = f["measurements"][:]
    return [(r["mapping"], r["dim"], r["op"], int(r["bytes"]), r["timing"], r["concurrency"]) for r in m], m


def check_kept(path, printed):
    """The file opens and holds every printed point, each with all its samples and one group row
    per group. A point is stored before it is printed, so the one in flight at the fault may be
    stored without having been printed: one more, never one fewer."""
    with read_h5(path) as f:
        keys, m = measured_keys(f)
        samples = f["samples"][:]
        groups = f["group_timings"][:]
        status = f.attrs["status"]
        failures = [r["message"].decode() for r in f["failures"][:]]
    n = len(keys)
    check(printed <= n <= printed + 1, f"the file holds {n} point(s), {printed} were printed before the fault")
    check(len(set(keys)) == n, "a point is stored twice")
    per_key = {}
    for s in samples:
        k = (s["mapping"], s["dim"], s["op"], int(s["bytes"]), s["timing"], s["concurrency"])
        per_key[k] = per_key.get(k, 0) + 1
    for k, r in zip(keys, m):
        check(per_key.get(k, 0) == r["iters"], f"point {k} has {per_key.get(k, 0)} samples, its row says {r['iters']} iterations")
        g = sum(1 for x in groups if (x["mapping"], x["dim"], x["op"], int(x["bytes"]), x["timing"], x["concurrency"]) == k)
        check(g == r["groups"], f"point {k} has {g} group rows, expected {r['groups']}")
    return n, status, failures


def check_complete(path):
    with read_h5(path) as f:
        keys, m = measured_keys(f)
        mappings = len(f["mappings/table"])
        status = f.attrs["status"]
    check(status == "complete", f"status after --resume is {status}")
    check(len(keys) == len(set(keys)), "--resume measured a stored point again")
    check(len(keys) == mappings * POINTS_PER_MAPPING, f"{len(keys)} points for {mappings} mappings, expected {mappings * POINTS_PER_MAPPING}")
    check((m["wrong"] == 0).all(), "wrong elements after --resume")
    return len(keys)


def resume(build, cluster, path):
    r = Run(build, cluster, [*RUN_ARGS, "--resume", path])
    rc = r.wait(300)
    check(rc == 0, f"--resume exited {rc}:\n{r.stderr()[-3000:]}\n{r.stdout()[-2000:]}")
    check("resuming" in r.stdout(), "--resume did not say it skipped the stored points")
    return check_complete(path)


def report(case, detection_s, message, kept, resumed):
    det = "-" if detection_s is None else f"{detection_s:.1f}"
    print(f"FAULT|{case}|{det}|{message}|{kept}|{resumed}")


def start_and_wait_rows(build, c, out, rows=4, args=()):
    run = Run(build, c.name, [*RUN_ARGS, *args, "--out", out])
    if not wait_for(lambda: run.rows_printed() >= rows or run.proc.poll() is not None, 120):
        fail("the run printed no rows within 120 s")
    check(run.proc.poll() is None, f"the run ended before the fault:\n{run.stderr()[-3000:]}")
    return run


def finish(run, timeout=60):
    """Waits for the launcher to end; what is left of the job after that is killed."""
    rc = run.wait(timeout)
    if rc is None:
        os.killpg(run.proc.pid, signal.SIGKILL)
        rc = run.wait(10)
        fail(f"mpirun did not end within {timeout} s of the fault being lifted:\n{run.stderr()[-3000:]}")
    return rc


def hang_case(build, name, case, inject, lift, expect):
    """A fault that stalls the ranks of node 1: the watchdog must end the run and name them."""
    with Cluster(name) as c:
        out = os.path.join(c.work, "run.h5")
        run = start_and_wait_rows(build, c, out)
        t0 = time.time()
        inject(c)
        hit = wait_for(lambda: run.first("watchdog:", t0), WATCHDOG_S + 20)
        lift(c)
        check(hit is not None, f"no watchdog message within {WATCHDOG_S + 20} s of the fault:\n{run.stderr()[-3000:]}")
        detection = hit[0] - t0
        message = hit[1].split("watchdog: ", 1)[1]
        rc = finish(run)
        check(rc != 0, "the run exited 0 after the fault")
        check(detection <= WATCHDOG_S + 1 + 4 + 2, f"detected after {detection:.1f} s (limit {WATCHDOG_S} s + query)")
        node1 = node_ns(c.name, 1)
        for needle in ("mapping '", node1, *expect):
            check(needle in message, f"the message does not say '{needle}': {message}")
        check(re.search(r"rank [23] on " + node1, message), f"the message does not name a rank of {node1}: {message}")
        printed = run.rows_printed()
        n, status, failures = check_kept(out, printed)
        check(status == "failed" and len(failures) == 1 and failures[0].endswith(message),
              f"status {status}, failures {failures}")
        total = resume(build, c.name, out)
        report(case, detection, message, f"{n} of {printed}", f"complete, {total} points")


# ---- the faults ----

def case_link_down(build, name):
    hang_case(build, name, "link down", lambda c: in_node(c.name, 1, "ip", "link", "set", "eth0", "down"),
              lambda c: in_node(c.name, 1, "ip", "link", "set", "eth0", "up"), ["unreachable"])


def case_node_frozen(build, name):
    def signal_all(c, sig):
        for pid in ns_pids(c.name, 1):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    hang_case(build, name, "node frozen", lambda c: signal_all(c, signal.SIGSTOP), lambda c: signal_all(c, signal.SIGCONT),
              ["no answer: stopped or frozen"])


def case_ranks_killed(build, name):
    """Open MPI's runtime ends the job as soon as a rank dies (docs/run.md): mpirun names the
    rank and node, rank 0 says which point it was in and keeps the file closed and resumable."""
    with Cluster(name) as c:
        out = os.path.join(c.work, "run.h5")
        run = start_and_wait_rows(build, c, out)
        victims = [p for p in ns_pids(c.name, 1) if "meshbench run" in cmdline(p) and rank_of(p) is not None]
        check(len(victims) == 2, f"expected node 1's two ranks, found {victims}")
        t0 = time.time()
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        rc = finish(run)
        check(rc != 0, "the run exited 0 after its ranks were killed")
        launcher = wait_for(lambda: run.first("exited on signal 9", t0), 1)
        check(launcher is not None, f"mpirun did not name the killed rank:\n{run.stderr()[-3000:]}")
        interrupted = run.first("interrupted by signal", t0)
        check(interrupted is not None and "mapping '" in interrupted[1], f"rank 0 did not say where the run was:\n{run.stderr()[-3000:]}")
        addr = "10.211.0.2"
        check(re.search(r"rank [23] with PID \d+ on node " + re.escape(addr), launcher[1]),
              f"mpirun's message does not name rank 2 or 3 on node 1 ({addr}): {launcher[1]}")
        detection = min(launcher[0], interrupted[0]) - t0
        printed = run.rows_printed()
        n, status, failures = check_kept(out, printed)
        check(status == "running" and not failures, f"an interrupted run should stay 'running' with no failure: {status} {failures}")
        total = resume(build, c.name, out)
        message = launcher[1].strip() + " / " + interrupted[1].split(": ", 2)[-1]
        report("ranks killed", detection, message, f"{n} of {printed}", f"complete, {total} points")


def case_packet_loss(build, name):
    """5% loss on node 1's link: TCP retransmits, points get slower; the run must complete
    without a false watchdog alarm and with correct results."""
    with Cluster(name) as c:
        out = os.path.join(c.work, "run.h5")
        clean = os.path.join(c.work, "clean.h5")
        # This machine's kernel has no netem: iptables' statistic match drops 5% of the packets
        # arriving at either end of node 1's link, each direction lossy as netem would make it.
        args = with_option(RUN_ARGS, "--watchdog", "20")
        t_clean = time.time()
        p = Run(build, c.name, [*args, "--out", clean])
        check(p.wait(300) == 0, f"the run without loss failed:\n{p.stderr()[-3000:]}")
        t_clean = time.time() - t_clean
        check(shutil.which("iptables") is not None, "iptables is missing (Debian package iptables, in scripts/deps.sh)")
        for k, peer in ((1, []), (0, ["-s", "10.211.0.2"])):
            q = in_node(c.name, k, "iptables", "-A", "INPUT", "-i", "eth0", *peer, "-m", "statistic", "--mode", "random",
                        "--probability", "0.05", "-j", "DROP")
            check(q.returncode == 0, "iptables failed", q)
        t0 = time.time()
        r = Run(build, c.name, [*args, "--out", out])
        rc = r.wait(300)
        elapsed = time.time() - t0
        check(rc == 0, f"the run under 5% loss failed (exit {rc}):\n{r.stderr()[-3000:]}")
        check(r.first("watchdog:") is None, "a false watchdog alarm under packet loss")
        total = check_complete(out)
        dropped = 0
        for k in (0, 1):
            rules = in_node(c.name, k, "iptables", "-L", "INPUT", "-v", "-x", "-n").stdout.splitlines()
            dropped += sum(int(line.split()[0]) for line in rules if "DROP" in line and "statistic" in line)
        check(dropped > 0, "no packet was dropped: the loss was not in effect")

        def worst(path):
            with read_h5(path) as f:
                m = f["measurements"][:]
            return max(float(x) for x in m["t_p99_us"]), max(float(x) for x in m["t_max_us"])
        (p99_clean, max_clean), (p99_loss, max_loss) = worst(clean), worst(out)
        message = (f"none (not a failure): {dropped} packets dropped, completed in {elapsed:.0f} s ({t_clean:.0f} s without loss), worst p99 {p99_loss / 1e3:.1f} ms vs {p99_clean / 1e3:.1f} ms without loss, "
                   f"worst max {max_loss / 1e3:.1f} ms vs {max_clean / 1e3:.1f} ms")
        report("5% packet loss", None, message, f"{total} of {total}", "not needed (complete)")


def case_disk_full(build, name):
    """The results filesystem (a small tmpfs) fills mid-run: rank 0 stops before a write could
    meet ENOSPC, the file stays readable, every rank ends; more room, then --resume."""
    with Cluster(name) as c:
        results = os.path.join(c.work, "results")
        # 40 iterations per point make the file's growth the same every time: the whole run
        # needs about 1.3 MB (the NIC counters' table included; its first chunk is reserved with
        # the first point), and the filesystem fills part-way (1500k-1650k fill between the 2nd
        # and the last point on the local cluster).
        args = with_option(with_option(RUN_ARGS, "--min-iters", "40"), "--max-iters", "40")
        c.mount(results, "-t", "tmpfs", "-o", "size=1560k", "mbfaults")
        out = os.path.join(results, "run.h5")
        run = Run(build, c.name, [*args, "--out", out])
        rc = run.wait(180)
        check(rc is not None, "the run did not end on a full filesystem")
        check(rc == 4, f"exit status {rc}, expected 4 (the run ended by the watchdog's path):\n{run.stderr()[-3000:]}")
        # Rank 0's own line: the others repeat it as "rank N (host): stopping: ...", and their
        # daemons may forward that before rank 0's does.
        hit = run.first("rank 0: the results writer")
        check(hit is not None, f"no message about the full filesystem from rank 0:\n{run.stderr()[-3000:]}")
        message = hit[1].split("rank 0: ", 1)[1]
        for needle in ("(rank 0 on " + node_ns(c.name, 0) + ")", "mapping '", "KiB free", "--resume"):
            check(needle in message, f"the message does not say '{needle}': {message}")
        # Every rank is gone promptly: the last line of the run came soon after the message.
        ended = max(t for t, _ in run.err + run.out)
        check(ended - hit[0] < 10, f"the other ranks took {ended - hit[0]:.1f} s to stop")
        printed = run.rows_printed()
        check(printed > 3, f"the filesystem filled too early ({printed} points printed): grow the tmpfs")
        n, status, failures = check_kept(out, printed)
        check(n == printed, f"{n} points stored, {printed} printed: the one that did not fit is neither")
        recorded = "failure recorded" if failures else "failure not recorded (no room)"
        sh("mount", "-o", "remount,size=64m", results, check_rc=True)
        total = resume(build, c.name, out)
        # Detected at the append of the point that did not fit, which is never printed.
        last_row = max(t for t, line in run.out if ROW.match(line))
        report("results filesystem full", max(0.0, hit[0] - last_row), message, f"{n} of {n} stored ({recorded})", f"complete, {total} points")


def case_unwritable(build, name):
    """An unwritable results folder (a read-only mount: root ignores permission bits) is refused
    up front, for a new run and for --resume, with one line and nothing written."""
    with Cluster(name) as c:
        results = os.path.join(c.work, "results")
        os.makedirs(results)
        out = os.path.join(results, "run.h5")
        # An interrupted run first, so that there is something to resume.
        run = start_and_wait_rows(build, c, out)
        os.killpg(run.proc.pid, signal.SIGTERM)
        rc = finish(run)
        check(rc != 0, "the interrupted run exited 0")
        before = open(out, "rb").read()
        with read_h5(out) as f:
            kept = len(f["measurements"])
        c.mount(results, "--bind", results)
        sh("mount", "-o", "remount,ro,bind", results, check_rc=True)
        messages = []
        for args in (["--out", os.path.join(results, "new.h5")], ["--resume", out]):
            t0 = time.time()
            p = Run(build, c.name, [*RUN_ARGS, *args])
            rc = p.wait(120)
            took = time.time() - t0
            lines = [line for _, line in p.err if line.startswith("meshbench")]
            check(rc == 2, f"exit status {rc}, expected 2:\n{p.stderr()[-2000:]}")
            check(len(lines) == 1 and "not writable" in lines[0], f"expected one line saying 'not writable': {lines}")
            messages.append((took, lines[0]))
        check(not os.path.exists(os.path.join(results, "new.h5")), "a refused run left a file")
        check(open(out, "rb").read() == before, "a refused --resume changed the file")
        sh("mount", "-o", "remount,rw,bind", results, check_rc=True)
        total = resume(build, c.name, out)
        report("unwritable results folder", max(t for t, _ in messages), " / ".join(m.split(": ", 1)[1] for _, m in messages),
               f"{kept} of {kept} (file unchanged)", f"complete, {total} points")


def case_clock_step(build, name):
    """Node 1's clock steps by +1 s while doctor measures the offsets: doctor FAILs clock.offset
    naming node 1 and its rank; with the clock steady again doctor passes."""
    with Cluster(name) as c:
        exe = os.path.join(build, "meshbench")
        a, b = "10.211.0.1", "10.211.0.2"

        def doctor(step):
            env = ["env", f"MESHBENCH_TEST_CLOCK_STEP_MS={step}"] if step else []
            cmd = [os.path.join(LC, "mpirun.sh"), "--cluster", c.name, "-np", "1", "--host", a, "--", exe, "doctor", "--format", "json",
                   ":", "-np", "1", "--host", b, *env, exe, "doctor", "--format", "json"]
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            return p, time.time() - t0
        p, took = doctor(1000)
        check(p.returncode == 1, f"doctor exit status {p.returncode}, expected 1 (FAIL)", p)
        clock = next(x for x in json.loads(p.stdout)["checks"] if x["id"] == "clock.offset")
        check(clock["status"] == "FAIL", f"clock.offset is {clock['status']}: {clock['reason']}")
        for needle in (node_ns(c.name, 1), "rank 1", "stepped"):
            check(needle in clock["reason"], f"clock.offset does not say '{needle}': {clock['reason']}")
        q, _ = doctor(0)
        check(q.returncode == 0, f"doctor without the step exited {q.returncode}", q)
        after = next(x for x in json.loads(q.stdout)["checks"] if x["id"] == "clock.offset")
        check(after["status"] == "PASS", f"clock.offset without the step is {after['status']}: {after['reason']}")
        report("clock stepped by 1 s during doctor", took, clock["reason"], "n/a (doctor stores nothing)", "doctor PASS once steady")


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("SKIP: the local test cluster needs root")
        sys.exit(SKIP)
    cases = {n[5:]: fn for n, fn in globals().items() if n.startswith("case_")}
    cases[sys.argv[1]](sys.argv[2], sys.argv[3])
    print("PASS", sys.argv[1])
