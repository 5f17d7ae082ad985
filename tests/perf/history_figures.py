#!/usr/bin/python3
"""How `meshbench history` does on real reruns of this machine: change points on honest runs
(false ones), and a planted 10% step from the 8th run on in one op at one size >= 64 KiB (every
mapping, dimension and timing mode where it runs), found at run 8 or not.

Measures RUNS honest runs of one configuration under mpirun (or reuses --keep's folder), then
runs history on them as they are, and once per op-size family >= 64 KiB with that family's
points 10% slower from the 8th run (by start time) on. Prints a Markdown table. Exit 0: it
measures, it does not judge.

  tests/perf/history_figures.py --meshbench build/meshbench --np 2 --runs 12 --keep /tmp/history-runs
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import MPI_ENV  # noqa: E402
from report_h5edit import plant_op_size_slowdown  # noqa: E402

import h5py  # noqa: E402

RUN = ["run", "--tp", "2", "-b", "1K", "-e", "4M", "-f", "4"]


def history(a, folder):
    p = subprocess.run([a.meshbench, "history", folder, "--format", "json"], capture_output=True, text=True)
    if p.returncode not in (0, 1, 3):
        sys.exit(f"history failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meshbench", default="build/meshbench")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--step-from", type=int, default=8, help="the first slowed run (1-based, by start time)")
    ap.add_argument("--extra", default="--budget 0.2", help="extra run options")
    ap.add_argument("--keep", help="keep the run files in this folder (reused if present)")
    a = ap.parse_args()
    a.meshbench = os.path.abspath(a.meshbench)
    work = a.keep or tempfile.mkdtemp(prefix="history-runs-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, **MPI_ENV)
    walls = []
    for k in range(a.runs):
        out = os.path.join(work, f"honest{k:02d}.h5")
        if os.path.exists(out):
            continue
        t0 = time.time()
        p = subprocess.run(["mpirun", "-np", str(a.np), a.meshbench, *RUN, *a.extra.split(), "--no-doctor", "--out", out],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"run {k} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
        walls.append(time.time() - t0)
    if walls:
        print(f"measured {len(walls)} run(s), {sum(walls) / len(walls):.1f} s each")

    honest = history(a, work)
    config = max(honest["configurations"], key=lambda c: len(c["runs"]))
    runs = [r["path"] for r in config["runs"]]  # time order
    series = len(config["series"])
    false_honest = sum(len(s["changes"]) for s in config["series"])
    print(f"\n{len(runs)} honest runs, {series} series (points and families): {false_honest} change point(s) found\n")
    for s in config["series"]:
        for c in s["changes"]:
            print(f"  honest: {s['name']}: from run {c['run']}, {100 * (c['ratio'] - 1):+.1f}%, p {c['p_value']:.3g}")

    with h5py.File(runs[0], "r") as f:
        m = f["measurements"][:]
    families = sorted({(r["op"].decode(), int(r["bytes"])) for r in m if int(r["bytes"]) >= 65536})
    print("\n| planted family | found at run 8 | found elsewhere | false change points in other series |")
    print("| --- | --- | --- | --- |")
    found_total, false_total, other_series = 0, 0, 0
    for op, nbytes in families:
        with tempfile.TemporaryDirectory() as d:
            for k, path in enumerate(runs):
                dst = os.path.join(d, os.path.basename(path))
                if k + 1 >= a.step_from:
                    plant_op_size_slowdown(path, dst, 1.10, op, nbytes)
                else:
                    shutil.copyfile(path, dst)
            h = history(a, d)
        c = max(h["configurations"], key=lambda c: len(c["runs"]))
        planted = lambda s: s["op"] == op and s["bytes"] == nbytes and s["kind"] in ("point", "op_size")  # noqa: E731
        # The op-size family where the op runs in several mappings or dimensions; else its points.
        fam = [s for s in c["series"] if s["kind"] == "op_size" and s["op"] == op and s["bytes"] == nbytes]
        fam = fam or [s for s in c["series"] if s["kind"] == "point" and s["op"] == op and s["bytes"] == nbytes]
        at8 = sum(any(ch["run"] == a.step_from for ch in s["changes"]) for s in fam)
        elsewhere = sum(sum(ch["run"] != a.step_from for ch in s["changes"]) for s in fam)
        others = [s for s in c["series"] if not planted(s)]
        false = sum(len(s["changes"]) for s in others)
        found_total += at8
        false_total += false
        other_series += len(others)
        print(f"| {op} at {nbytes // 1024} KiB ({len(fam)} series) | {at8} of {len(fam)} | {elsewhere} | {false} of {len(others)} |")
    print(f"\nplanted families found at run {a.step_from}: {found_total}; false change points: {false_total} over {other_series} series")
    if not a.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
