"""End to end on the local test cluster (issue 7): 2 emulated nodes x 2 slots, links shaped to
1 Gbit/s. `meshbench run` measures several mappings of a 4-rank TP2 x DP2 layout, through sbatch
(the generated job script) or through mpirun with the namespace launcher; `meshbench report`
ranks them. The assertions are what physics says:
  - keeping TP inside a node beats sending it across the 1 Gbit/s link by at least 3x at 1 MiB
    and above;
  - no rate measured over the shaped link exceeds the shaped rate;
  - meshbench's cross-node all-reduce time agrees within 10% with a plain MPI timing loop over
    the same ranks and sizes (the harness adds nothing): the median of per-round ratios of the
    two run back to back.
And doctor's clock offset across the emulated nodes (issue 8): about 0 ms, and an injected offset
detected as FAIL.
Usage: e2e_test.py mpirun|sbatch|fidelity|doctor|up|down BUILD_DIR CLUSTER_NAME (up and down: the
cluster the cases share, as CTest's fixture; a case finds it up, or brings up its own)"""
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import check, fail, read_h5  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LC = os.path.join(ROOT, "slurm", "localcluster")
SHAPED_GBPS = 0.125  # 1 Gbit/s in GB/s
SKIP = 77
# meshbench's time per op may differ from a plain MPI loop's by this much (the fidelity target),
# over all sizes together; at any one size, by FIDELITY_SIZE_TOLERANCE (case_fidelity says why).
FIDELITY_TOLERANCE = 0.10
FIDELITY_SIZE_TOLERANCE = 0.20
# Job scripts, binaries and results must not live under /tmp: every emulated node has its own.
WORK_ROOT = "/var/lib/meshbench/e2e"
# Where up.sh keeps a cluster's state while it is up (slurm/localcluster/common.sh).
CLUSTER_STATE_ROOT = os.environ.get("MBN_STATE_ROOT", "/var/lib/meshbench/localcluster")
# TP2 x DP2 with EP2 x EDP2: enough dimensions on 2 x 2 slots for several distinct mappings.
# The sizes are a small MoE's per step (docs/examples/tiny-moe-workload.json, 8 micro-batches: 96 TP all-reduces
# and EP all-to-alls of 1 MiB against one 2 MiB gradient all-reduce each for DP and EDP), so the
# report ranks by step time and the heaviest traffic is TP's and EP's. {work} is the case's
# folder: the emulated nodes have /tmp of their own, so the file is copied there.
RUN_ARGS = ["--tp", "2", "--ep", "2", "--etp", "1", "--workload", "{work}/workload.json", "--sizes", "workload", "--timing", "per_iteration",
            "--budget", "1.5", "--min-iters", "5", "--top", "0"]


def run_args(work):
    shutil.copy2(os.path.join(ROOT, "docs", "examples", "tiny-moe-workload.json"), os.path.join(work, "workload.json"))
    return [a.replace("{work}", work) for a in RUN_ARGS]


def sh(*cmd, timeout=600, env=None):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, env=env)


def cluster_up(name):
    can = sh(os.path.join(LC, "up.sh"), "--can-run", "--slurm")
    if can.returncode != 0:
        print("SKIP:", can.stdout.strip() or can.stderr.strip())
        sys.exit(SKIP)
    up = sh(os.path.join(LC, "up.sh"), "2", "--slots", "2", "--rate", "1gbit", "--slurm", "--cluster", name)
    check(up.returncode == 0, "up.sh failed", up)


def cluster_down(name):
    down = sh(os.path.join(LC, "down.sh"), "--cluster", name)
    if down.returncode != 0:
        print(down.stdout, down.stderr)


class LocalCluster:
    """A 2 x 2 cluster and a work folder for one case, the folder gone afterwards. The cases share
    one cluster, brought up by the CTest fixture's `up` and taken down by its `down`
    (tests/integration/e2e.cmake); a case run by hand with a cluster of its own name brings it up
    and takes it down itself."""

    def __init__(self, name, case):
        self.name = name
        self.work = os.path.join(WORK_ROOT, name, case)
        self.own = not cluster_is_up(name)

    def __enter__(self):
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        if self.own:
            cluster_up(self.name)
        return self.work

    def __exit__(self, *exc):
        if self.own:
            cluster_down(self.name)
        if not os.environ.get("MESHBENCH_E2E_KEEP"):
            shutil.rmtree(self.work, ignore_errors=True)


def cluster_is_up(name):
    return os.path.isdir(os.path.join(CLUSTER_STATE_ROOT, name))


def mpirun(name, np, *cmd, extra=()):
    return sh(os.path.join(LC, "mpirun.sh"), "--cluster", name, "-np", str(np), *extra, "--", *cmd)


def groups_span_nodes(f, mapping_index, dim):
    hosts = [h.decode() for h in f["run/hosts"][:]]
    m = f[f"mappings/M{mapping_index}"]
    slots = m["slot_of_rank"][:]
    nodes_first = f["topology/nodes/first_slot"][:]
    nodes_count = f["topology/nodes/slot_count"][:]
    names = [h.decode() for h in f["topology/nodes/hostname"][:]]

    def host_of_slot(s):
        for first, count, name in zip(nodes_first, nodes_count, names):
            if first <= s < first + count:
                return name
        return None
    del hosts
    return any(len({host_of_slot(slots[r]) for r in g}) > 1 for g in m[f"groups/{dim}"][:])


def check_physics(path):
    with read_h5(path) as f:
        table = f["mappings/table"][:]
        index = {r["name"].decode(): int(r["index"]) for r in table}
        check(len(index) >= 3, f"expected at least 3 mappings, got {sorted(index)}")
        rows = f["measurements"][:]
        check((rows["wrong"] == 0).all(), "wrong elements")
        tp = {}
        for r in rows:
            name, dim = r["mapping"].decode(), r["dim"].decode()
            cross = groups_span_nodes(f, index[name], dim)
            # Nothing crosses the shaped link faster than the link (2% for rounding).
            if cross:
                check(r["busbw_gbps"] <= SHAPED_GBPS * 1.02,
                      f"{name} {dim} {r['bytes']} B: busbw {r['busbw_gbps']:.4f} GB/s exceeds the shaped {SHAPED_GBPS} GB/s")
            if dim == "tp":
                tp.setdefault(cross, {}).setdefault(int(r["bytes"]), []).append(float(r["t_median_us"]))
        check(True in tp and False in tp, f"need mappings with TP inside and across nodes: {list(tp)}")
        check(max(tp[False]) >= (1 << 20), f"no TP size of 1 MiB or more measured: {sorted(tp[False])}")
        for size in sorted(tp[False]):
            if size < (1 << 20):
                continue
            inside, across = min(tp[False][size]), min(tp[True][size])
            check(across >= 3 * inside, f"TP all-reduce at {size} B: across nodes {across:.0f} us is not 3x inside {inside:.0f} us")
            print(f"ok: TP all-reduce {size >> 20} MiB: inside a node {inside:.0f} us, across {across:.0f} us ({across / inside:.1f}x)")


def check_report(build, path):
    exe = os.path.join(build, "meshbench")
    rep = sh(exe, "report", path, "--format", "json")
    check(rep.returncode == 0, "meshbench report failed", rep)
    import json  # noqa: PLC0415
    data = json.loads(rep.stdout)
    ranking = data.get("ranking", {}).get("mappings", [])
    check(ranking and ranking[0]["rank"] == 1, f"report has no ranking: {list(data)}")
    best = ranking[0]["name"]
    check(data["best"]["mapping"] == best, f"report's best mapping {data['best']['mapping']} is not its rank 1 {best}")
    with read_h5(path) as f:
        table = {r["name"].decode(): int(r["index"]) for r in f["mappings/table"][:]}
        check(not groups_span_nodes(f, table[best], "tp"), f"report ranks '{best}' first, whose TP groups cross nodes")
        check(data["ranking"].get("basis") == "workload", f"report did not rank by the workload's step time: {data['ranking'].get('basis')}")
        # 96 of the step's 98 collectives are TP's and EP's, so the best mapping keeps TP inside
        # a node (checked above). How much worse the TP-across mappings are is not asserted: it
        # depends on what the best mapping sends across the link instead (its EP all-to-alls,
        # its gradient all-reduces), measured in other seconds than theirs, and with other builds
        # running it ranged from 1.35x to 8.06x over 11 runs (limits of 2.0x and 1.5x each failed
        # once); the per-op physics (TP across at least 3x inside) is check_physics's.
        tp_across = [m["vs_best"] for m in ranking if groups_span_nodes(f, table[m["name"]], "tp")]
        check(tp_across and min(tp_across) > 1.0, f"a mapping with TP across nodes ties the best: {tp_across}")
    worst = max(m["vs_best"] for m in ranking)
    print(f"ok: report ranks '{best}' (TP inside a node) first by step time; mappings with TP across nodes "
          f"{min(tp_across):.2f}x to {max(tp_across):.2f}x the best; the slowest mapping {worst:.2f}x")


def case_mpirun(build, name):
    with LocalCluster(name, "mpirun") as work:
        out = os.path.join(work, "mpirun.h5")
        p = mpirun(name, 4, os.path.join(build, "meshbench"), "run", *run_args(work), "--out", out)
        check(p.returncode == 0, "meshbench run under mpirun failed", p)
        check_physics(out)
        check_report(build, out)


def case_sbatch(build, name):
    with LocalCluster(name, "sbatch") as work:
        # The job runs the binary on the emulated nodes, whose /tmp is private: run a copy that
        # lives in the work folder (outside /tmp), wherever the build tree is.
        exe = os.path.join(work, "meshbench")
        shutil.copy2(os.path.join(build, "meshbench"), exe)
        job = os.path.join(work, "job.sbatch")
        gen = sh(exe, "slurm", "--platform", "generic", "--env-template", "local", "--env-file", os.path.join(work, "meshbench.env"),
                 "--nodes", "2", "--gpus-per-node", "2", "--meshbench", exe, "--output-dir", work,
                 "--run-args", " ".join(run_args(work)), "-o", job)
        check(gen.returncode == 0, "meshbench slurm failed", gen)
        sub = sh(os.path.join(LC, "sbatch.sh"), "--cluster", name, "--timeout", "500", job, timeout=560)
        if sub.returncode != 0:
            logs = ""
            for root, _, files in os.walk(work):
                for fn in files:
                    if fn.endswith(".out") or fn == "steps.txt":
                        logs += f"--- {fn}\n" + open(os.path.join(root, fn), errors="replace").read()[-4000:]
            fail("the sbatch job did not complete\n" + logs, sub)
        job_id = sub.stdout.strip().splitlines()[-1]
        out = os.path.join(work, f"bench-{job_id}", "results.h5")
        check(os.path.exists(out), f"no results file at {out}")
        with read_h5(out) as f:
            hosts = sorted({h.decode() for h in f["run/hosts"][:]})
            check(len(hosts) == 2, f"the job did not span both nodes: {hosts}")
            env = {r["name"].decode(): r["value"].decode() for r in f["provenance/environment"][:]}
            check(any(k.startswith("SLURM_") for k in env), "the run did not record the Slurm environment")
        check_physics(out)
        check_report(os.path.dirname(exe), out)


def case_fidelity(build, name):
    """A 2-rank all-reduce across the link: meshbench's driver against a plain MPI loop.

    Both run in the same two processes, round by round, back to back, who goes first alternating
    (tests/perf/fidelity.cpp): on a shared 2-core machine two separate launches differed by 20%
    from each other, more than the harnesses do. The shaped link has states that last seconds
    (1 MiB: a round's median 8.75 or 11.1 ms; reno makes the slow one rarer, not absent), and
    each harness's median over rounds lands in whichever state most of its rounds saw: compared
    that way, or by any quantile of the two harnesses' rounds taken apart, the harnesses once
    differed by 10% when their medians agreed to 0.01%. So the statistic is the median over
    rounds of each round's own ratio (meshbench / plain, the two halves a fraction of a second
    apart, in one link state): a round whose halves straddle a flip is off by the states' ratio
    (about 1.27) one way or the other, and the median ignores such rounds unless they are half
    of all. The target, FIDELITY_TOLERANCE, holds for the median over every size's rounds; each
    size alone must be within FIDELITY_SIZE_TOLERANCE. Measured on the 2-core VM with other
    builds running (docs/reliability.md, "Flakes"): a round's log ratio scatters by 0.15 (robust
    sigma; rounds 0.67..2.4), so the median of 21 rounds of one size moved by 0.035 (sd) from run
    to run, around 0.984; with 31 rounds per size that is about 0.029 at one size and 0.020 over
    the two sizes' 62 rounds, which puts both limits more than 4 sigmas away. Two sizes, 1 and
    2 MiB (4 MiB took 4 of the 7 parts of the case's time): each crosses the link for several
    milliseconds, far above the harnesses' own microseconds."""
    rounds = 31
    with LocalCluster(name, "fidelity"):
        env_name = "MESHBENCH_FIDELITY_ROUNDS"
        os.environ[env_name] = "1"
        p = mpirun(name, 2, os.path.join(build, "perf", "perf_fidelity"), "20", str(rounds), "all_reduce", "1048576", "2097152",
                   extra=("--map-by", "ppr:1:node", "-x", env_name))
        check(p.returncode == 0, "perf_fidelity failed", p)
        lines = [line.split() for line in p.stdout.split("\n")]
        hosts = next((parts[1:] for parts in lines if parts and parts[0] == "hosts"), [])
        check(len(set(hosts)) == 2, f"the two ranks are not on two nodes: {hosts}", p)
        rows = [parts for parts in lines if len(parts) == 8 and parts[0] == "all_reduce"]
        check(len(rows) == 2, "expected all-reduce at 1 and 2 MiB", p)
        per_round = [(float(parts[3]), float(parts[5]), float(parts[7])) for parts in (line.split() for line in p.stderr.split("\n"))
                     if len(parts) == 8 and parts[0] == "round"]
        check(len(per_round) == len(rows) * rounds, f"expected {len(rows) * rounds} round lines, got {len(per_round)}", p)
        all_ratios = []
        for i, (_, size, plain, mesh, ratio, _, _, _) in enumerate(rows):
            these = per_round[i * rounds:(i + 1) * rounds]
            ratios = [r for _, _, r in these]
            all_ratios += ratios
            median_ratio = statistics.median(ratios)
            check(abs(median_ratio - float(ratio)) < 2e-3, f"perf_fidelity's ratio {ratio} is not the median of its round ratios {median_ratio:.4f}", p)
            plain_median = statistics.median(x for x, _, _ in these)
            within = sum(1 for r in ratios if abs(r - 1) <= FIDELITY_TOLERANCE)
            print(f"all-reduce {int(size) >> 20} MiB across the link: median of {rounds} per-round ratios meshbench/plain {median_ratio:.3f} "
                  f"(rounds within {FIDELITY_TOLERANCE:.0%}: {within}; range {min(ratios):.3f}..{max(ratios):.3f}); "
                  f"medians {float(plain):.0f} and {float(mesh):.0f} us (ratio {float(mesh) / float(plain):.3f})\n"
                  f"  per-round ratios in round order: {' '.join(f'{r:.3f}' for r in ratios)}")
            # 1 MiB at 1 Gbit/s both ways is about 8.4 ms: a time far below says the link was not crossed.
            check(plain_median > 1e6 * int(size) / (SHAPED_GBPS * 1e9) * 0.5,
                  f"plain loop at {size} B took {plain_median:.0f} us, faster than the shaped link allows")
            check(abs(median_ratio - 1) <= FIDELITY_SIZE_TOLERANCE,
                  f"meshbench differs from the plain loop by {100 * (median_ratio - 1):.1f}% at {size} B (median of per-round ratios)")
        overall = statistics.median(all_ratios)
        print(f"all sizes: median of {len(all_ratios)} per-round ratios meshbench/plain {overall:.3f}")
        check(abs(overall - 1) <= FIDELITY_TOLERANCE,
              f"meshbench differs from the plain loop by {100 * (overall - 1):.1f}% (median of the per-round ratios of all sizes)")


def case_doctor(build, name):
    """doctor across the emulated nodes: the clock offset is about 0 ms; an injected one FAILs."""
    import json  # noqa: PLC0415
    with LocalCluster(name, "doctor"):
        exe = os.path.join(build, "meshbench")
        for inject, want_status, want_exit in ((None, "PASS", None), ("25", "FAIL", 1)):
            extra = ["--inject-clock-offset-ms", inject] if inject else []
            p = mpirun(name, 2, exe, "doctor", "--format", "json", *extra, extra=("--map-by", "ppr:1:node"))
            check(want_exit is None or p.returncode == want_exit, f"doctor exit status {p.returncode}, expected {want_exit}", p)
            report = json.loads(p.stdout)
            clock = next(c for c in report["checks"] if c["id"] == "clock.offset")
            offsets = report["clock"]["offsets"]
            hosts = {o["host"] for o in offsets}
            check(not report["clock"].get("same_node") and len(hosts) == 1, f"expected one other node measured: {report['clock']}")
            check(clock["status"] == want_status, f"clock.offset is {clock['status']}, expected {want_status}: {clock['reason']}")
            worst = max(abs(o["offset_ms"]) for o in offsets)
            if inject is None:
                check(worst < 2.0, f"offset between emulated nodes of one machine is {worst:.3f} ms, expected about 0")
            else:
                check(abs(worst - 25.0) < 2.0, f"injected 25 ms measured as {worst:.3f} ms")
            print(f"ok: clock offset across the emulated nodes {worst:.3f} ms -> {clock['status']}")


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("SKIP: the local test cluster needs root")
        sys.exit(SKIP)
    if sys.argv[1] == "up":
        cluster_down(sys.argv[3])  # what a killed earlier run left
        cluster_up(sys.argv[3])
    elif sys.argv[1] == "down":
        cluster_down(sys.argv[3])
        shutil.rmtree(os.path.join(WORK_ROOT, sys.argv[3]), ignore_errors=True)
        check(not cluster_is_up(sys.argv[3]), f"cluster {sys.argv[3]} is still up after down.sh")
    else:
        {"mpirun": case_mpirun, "sbatch": case_sbatch, "fidelity": case_fidelity, "doctor": case_doctor}[sys.argv[1]](sys.argv[2], sys.argv[3])
    print("PASS", sys.argv[1])
