#!/usr/bin/python3
"""Run-to-run repeatability of meshbench's all-reduce beside OSU micro-benchmarks' osu_allreduce:
RUNS launches of each, interleaved (OSU, meshbench, meshbench, OSU, ...), then per size the
coefficient of variation over the runs of each harness's per-run figure (meshbench: the point's
median; OSU: its reported average latency), and the wall time per launch. Prints a Markdown
table. Exit status 0: it measures, it does not judge.

  tests/perf/repeatability.py --meshbench build/meshbench --osu /path/to/osu_allreduce --np 4 --runs 10
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import measuring_env, work_folder  # noqa: E402

import h5py  # noqa: E402


def osu_run(a, env):
    t0 = time.time()
    p = subprocess.run(["mpirun", "-np", str(a.np), a.osu, "-m", f"{a.min_bytes}:{a.max_bytes}", "-i", str(a.osu_iters), "-x",
                        str(a.osu_warmup)], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"osu_allreduce failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    out = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit():
            out[int(parts[0])] = float(parts[1])
    return out, time.time() - t0


def meshbench_run(a, env, path):
    t0 = time.time()
    cmd = ["mpirun", "-np", str(a.np), a.meshbench, "run", "--tp", str(a.np), "--dims", "tp", "--ops", "all_reduce", "--timing",
           "per_iteration", "-b", str(a.min_bytes), "-e", str(a.max_bytes), "-f", "2", "--no-doctor", *a.extra.split(), "--out", path,
           "--force"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"meshbench failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
    return {int(r["bytes"]): float(r["t_median_us"]) for r in m}, time.time() - t0


def cv(values):
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 and statistics.mean(values) > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meshbench", default="build/meshbench")
    ap.add_argument("--osu", required=True, help="the osu_allreduce binary")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--min-bytes", type=int, default=4)
    ap.add_argument("--max-bytes", type=int, default=4 << 20)
    ap.add_argument("--osu-iters", type=int, default=1000)
    ap.add_argument("--osu-warmup", type=int, default=200)
    ap.add_argument("--extra", default="", help="extra meshbench run options, e.g. '--budget 0.5 --rounds 3'")
    a = ap.parse_args()
    env = measuring_env(a.np)
    work, _scratch = work_folder(None, "mb-repeat-")
    osu, mb, osu_walls, mb_walls = [], [], [], []
    for k in range(a.runs):
        order = ("osu", "mb") if k % 2 == 0 else ("mb", "osu")
        for which in order:
            if which == "osu":
                r, w = osu_run(a, env)
                osu.append(r)
                osu_walls.append(w)
            else:
                r, w = meshbench_run(a, env, os.path.join(work, f"run{k:02d}.h5"))
                mb.append(r)
                mb_walls.append(w)
    sizes = sorted(set(osu[0]) & set(mb[0]))
    print(f"{a.runs} interleaved launches each on {a.np} ranks; wall per launch: OSU median {statistics.median(osu_walls):.1f} s "
          f"(osu_allreduce -i {a.osu_iters} -x {a.osu_warmup}), meshbench median {statistics.median(mb_walls):.1f} s "
          f"(run {a.extra or 'defaults'})\n")
    print("| size (B) | OSU median (us) | OSU CV | meshbench median (us) | meshbench CV | more repeatable |")
    print("| ---: | ---: | ---: | ---: | ---: | --- |")
    osu_cvs, mb_cvs = [], []
    for s in sizes:
        o = [r[s] for r in osu if s in r]
        m = [r[s] for r in mb if s in r]
        co, cm = cv(o), cv(m)
        osu_cvs.append(co)
        mb_cvs.append(cm)
        print(f"| {s} | {statistics.median(o):.2f} | {co * 100:.1f}% | {statistics.median(m):.2f} | {cm * 100:.1f}% | "
              f"{'meshbench' if cm < co else 'OSU'} |")
    print(f"\nmedian CV over sizes: OSU {statistics.median(osu_cvs) * 100:.1f}%, meshbench {statistics.median(mb_cvs) * 100:.1f}%")
    big = [i for i, s in enumerate(sizes) if s >= 65536]
    worse = [sizes[i] for i in big if mb_cvs[i] > osu_cvs[i]]
    print(f"sizes >= 64 KiB where meshbench's CV is above OSU's: {worse if worse else 'none'}")


if __name__ == "__main__":
    main()
