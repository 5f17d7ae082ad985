#!/usr/bin/python3
"""Where a run's noise comes from: how far whole launches of one configuration move against
each other, and whether launches close in time move together.

Measures GROUPS groups of PER_GROUP back-to-back launches (`mpirun -np NP meshbench run …`),
each arm in turn within a group when --arm is given more than once (arms interleaved, so a
slow minute of the machine falls on all of them), or reads run files already kept
(--keep DIR with its files: DIR/g<K>/<arm><J>.h5), or reads a flat folder of run*.h5 in
start-time order (--read DIR, as compare_gate.py --keep writes it; groups of PER_GROUP
consecutive runs). Then, per arm:
  - each run's whole-run shift: the median over its points of log(median time) less the
    point's median over all runs of the arm;
  - each run's shift in the order measured, and the robust sigma of successive differences
    (how much neighbouring launches differ, against the robust sigma over all of them);
  - runs in the far machine state (the median core-to-core reading of the kept visits more
    than 2x the arm's median run), counted and left out of what follows;
  - the near runs' spread: robust sigma (1.4826 MAD) and how many are 10% faster or slower
    than the middle run; per size, the median shift of the fast runs and of the others;
  - how much the probe's reading tells: the correlation of a run's reading with its shift;
  - whether launches close in time move together: the between-group F of the shifts, and the
    share of F values at least as large when the runs are dealt into groups at random (seeded).
Prints the figures; exit status 0: it measures, it does not judge.

  tests/perf/launch_spread.py --meshbench build/meshbench --groups 30 --per-group 5 \\
      --extra '--budget 0.1' --keep /tmp/spread
  tests/perf/launch_spread.py --read /tmp/gate-runs --per-group 3
  tests/perf/launch_spread.py --groups 12 --per-group 2 --arm plain: --arm aslr_off:'setarch -R' --keep DIR
"""
import argparse
import glob
import math
import os
import random
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import measuring_env, work_folder  # noqa: E402

import h5py  # noqa: E402

RUN = ["run", "--tp", "2", "-b", "1K", "-e", "1M", "-f", "4"]


def launch(a, env, prefix, out):
    if os.path.exists(out):
        return
    cmd = [*shlex.split(prefix), "mpirun", "-np", str(a.np), a.meshbench, *RUN, *a.extra.split(), "--out", out]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"launch_spread: {' '.join(cmd)} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")


def read_run(path):
    """Per point (mapping, dim, op, timing, concurrency, bytes): log median time; the median
    core-to-core reading of the kept visits (None when the run was not probed)."""
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
        points = {}
        for r in m:
            key = tuple(r[k].decode() for k in ("mapping", "dim", "op", "timing", "concurrency")) + (int(r["bytes"]),)
            points[key] = math.log(float(r["t_median_us"]))
        reading = None
        if "state_probes" in f and len(f["state_probes"]) > 0:
            s = f["state_probes"][:]
            kept = [float(x) for x in s["core_to_core_ns"][s["kept"] == 1]]
            reading = statistics.median(kept) if kept else None
    return points, reading


def f_statistic(groups):
    values = [x for g in groups for x in g]
    mean = statistics.fmean(values)
    between = sum(len(g) * (statistics.fmean(g) - mean) ** 2 for g in groups)
    within = sum((x - statistics.fmean(g)) ** 2 for g in groups for x in g)
    dof_b, dof_w = len(groups) - 1, len(values) - len(groups)
    return (between / dof_b) / (within / dof_w) if within > 0 and dof_b > 0 and dof_w > 0 else float("nan")


def robust_sigma(values):
    mid = statistics.median(values)
    return 1.4826 * statistics.median(abs(x - mid) for x in values)


def pct(log_value):
    return f"{(math.exp(log_value) - 1) * 100:+.1f}%"


def report(arm, runs, seed):
    """runs: [(group, path, points, reading)]"""
    common = set.intersection(*(set(p) for _, _, p, _ in runs))
    centre = {k: statistics.median(p[k] for _, _, p, _ in runs) for k in common}
    shifts = [statistics.median(p[k] - centre[k] for k in common) for _, _, p, _ in runs]
    readings = [r for _, _, _, r in runs if r is not None]
    usual = statistics.median(readings) if readings else None
    far = [usual is not None and r is not None and r > 2 * usual for _, _, _, r in runs]
    near = [(g, s, r, p) for (g, _, p, r), s, is_far in zip(runs, shifts, far) if not is_far]
    print(f"\n## arm {arm}: {len(runs)} runs, {len(common)} points in every run")
    print("whole-run shift per run, in the order measured (100 x log ratio): " + " ".join(f"{s * 100:+.1f}" for s in shifts))
    steps = [b - a for a, b in zip(shifts, shifts[1:])]
    if len(steps) >= 2:
        step_sigma = 1.4826 * statistics.median(abs(x) for x in steps) / math.sqrt(2)
        print(f"robust sigma over the runs {robust_sigma(shifts) * 100:.1f}%; from successive differences (1.4826 median |step| / sqrt 2) "
              f"{step_sigma * 100:.1f}%")
    far_shifts = [s for s, is_far in zip(shifts, far) if is_far]
    far_readings = [r for (_, _, _, r), is_far in zip(runs, far) if is_far]
    if far_shifts:
        print(f"far machine state: {len(far_shifts)} of {len(runs)} runs, {pct(min(far_shifts))} to {pct(max(far_shifts))} as a whole, "
              f"core-to-core {min(far_readings):.0f}-{max(far_readings):.0f} ns")
    else:
        print("far machine state: no run")
    if len(near) < 3:
        print("fewer than three near runs: nothing more to say")
        return
    s_near = [s for _, s, _, _ in near]
    mid = statistics.median(s_near)
    fast = [x for x in near if x[1] - mid < math.log(0.9)]
    slow = [x for x in near if x[1] - mid > math.log(1.1)]
    print(f"near runs: {len(near)}; robust sigma of the whole-run shift {robust_sigma(s_near) * 100:.1f}%, "
          f"standard deviation {statistics.stdev(s_near) * 100:.1f}%; {len(fast)} runs more than 10% faster than the middle run, "
          f"{len(slow)} more than 10% slower")
    if fast:
        others = [x for x in near if x not in fast]
        print("per size, median shift against the arm's median run (fast runs | the others):")
        for size in sorted({k[-1] for k in common}):
            keys = [k for k in common if k[-1] == size]
            def med(rows):
                return statistics.median(statistics.median(p[k] - centre[k] for k in keys) for _, _, _, p in rows)
            print(f"  {size:>9} B  {pct(med(fast))} | {pct(med(others))}")
    pairs = [(r, s) for _, s, r, _ in near if r is not None]
    if len(pairs) >= 3 and len({r for r, _ in pairs}) > 1:
        mr, ms = statistics.fmean(r for r, _ in pairs), statistics.fmean(s for _, s in pairs)
        cov = sum((r - mr) * (s - ms) for r, s in pairs)
        corr = cov / math.sqrt(sum((r - mr) ** 2 for r, _ in pairs) * sum((s - ms) ** 2 for _, s in pairs))
        print(f"correlation of the probe's median reading with the shift over the near runs: {corr:.2f}")
    by_group = {}
    for g, s, _, _ in near:
        by_group.setdefault(g, []).append(s)
    groups = [v for v in by_group.values() if len(v) >= 2]
    if len(groups) >= 2:
        f0 = f_statistic(groups)
        rng = random.Random(seed)
        pool = [x for v in groups for x in v]
        sizes = [len(v) for v in groups]
        as_large, trials = 0, 2000
        for _ in range(trials):
            rng.shuffle(pool)
            dealt, i = [], 0
            for n in sizes:
                dealt.append(pool[i:i + n])
                i += n
            as_large += int(f_statistic(dealt) >= f0)
        print(f"launches close in time: between-group F {f0:.2f} over {len(groups)} groups, permutation p {as_large / trials:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meshbench", default="build/meshbench")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--groups", type=int, default=30)
    ap.add_argument("--per-group", type=int, default=5, help="back-to-back launches of each arm per group")
    ap.add_argument("--extra", default="--budget 0.1", help="extra run options")
    ap.add_argument("--arm", action="append", help="NAME:PREFIX, a command put before mpirun (e.g. 'env OMPI_MCA_x=y'); "
                                                   "repeat to interleave arms; default one arm 'shm' with none")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the run files in this folder (reused if present)")
    ap.add_argument("--read", help="measure nothing: read DIR/run*.h5 in start-time order, PER_GROUP consecutive runs to a group")
    a = ap.parse_args()
    if a.read:
        def started(path):
            with h5py.File(path, "r") as f:
                return str(f.attrs.get("started_at", "")), path
        paths = sorted(glob.glob(os.path.join(a.read, "run*.h5")), key=started)  # run100 after run99
        if len(paths) < 3:
            sys.exit(f"launch_spread: error: {a.read} holds {len(paths)} run*.h5 files; give a folder of at least three")
        print(f"{len(paths)} runs read from {a.read}, {a.per_group} consecutive runs to a group")
        report("read", [(i // a.per_group, p, *read_run(p)) for i, p in enumerate(paths)], a.seed)
        return
    arms = []
    for spec in a.arm or ["shm:"]:
        name, sep, prefix = spec.partition(":")
        if not sep or not name.isidentifier():
            sys.exit(f"launch_spread: error: --arm takes NAME:PREFIX with a plain NAME (got '{spec}')")
        arms.append((name, prefix))
    env = measuring_env(a.np)
    work, _scratch = work_folder(a.keep, "mb-spread-")
    runs = {name: [] for name, _ in arms}
    for g in range(1, a.groups + 1):
        folder = os.path.join(work, f"g{g}")
        os.makedirs(folder, exist_ok=True)
        for j in range(a.per_group):
            for name, prefix in arms:
                path = os.path.join(folder, f"{name}{j}.h5")
                launch(a, env, prefix, path)
                points, reading = read_run(path)
                runs[name].append((g, path, points, reading))
    print(f"{a.groups} groups of {a.per_group} back-to-back launches per arm of "
          f"`mpirun -np {a.np} meshbench {' '.join(RUN + a.extra.split())}`; arms: {', '.join(n for n, _ in arms)}")
    for name, _ in arms:
        report(name, runs[name], a.seed)


if __name__ == "__main__":
    main()
