#!/usr/bin/python3
"""False-positive rate of `meshbench compare` over honest reruns on this machine, and its power
on the same reruns with a planted slowdown.

Runs one small configuration RUNS times under mpirun (4 ranks, as the integration tests), then
compares consecutive runs (or --pairs all): every flagged point there is a false positive,
since nothing changed. Then, for each pair, plants a FACTOR slowdown into the newer run's
quietest point (report_h5edit.plant_slowdown) and counts how often compare flags it.

  tests/perf/compare_false_positives.py --meshbench build/meshbench --runs 12 [--keep DIR]
Prints the figures; exit status 0 (it measures, it does not judge).
"""
import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import MPI_ENV  # noqa: E402
from report_h5edit import plant_slowdown  # noqa: E402

RUN = ["run", "--tp", "2", "--ep", "2", "--etp", "1", "-b", "1K", "-e", "256K", "-f", "4", "--budget", "0.1",
       "--min-iters", "30", "--batches", "3"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meshbench", default="build/meshbench")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--pairs", choices=["consecutive", "all"], default="consecutive")
    ap.add_argument("--threshold", default="0.05")
    ap.add_argument("--factor", type=float, default=1.10)
    ap.add_argument("--keep", help="keep the run files in this folder (reused if present)")
    ap.add_argument("--extra", default="", help="extra run options, e.g. '--timing per_iteration'")
    a = ap.parse_args()
    env = dict(os.environ)
    env.update(MPI_ENV)
    if a.np <= 2:
        env.pop("OMPI_MCA_mpi_yield_when_idle")  # adds noise when ranks do not outnumber cores
    work = a.keep or tempfile.mkdtemp(prefix="mb-fp-")
    os.makedirs(work, exist_ok=True)
    files = []
    started = time.time()
    for i in range(a.runs):
        out = os.path.join(work, f"run{i:02d}.h5")
        if not os.path.exists(out):
            cmd = ["mpirun", "-np", str(a.np), a.meshbench, *RUN, *a.extra.split(), "--out", out]
            p = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"run {i} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
        files.append(out)
        print(f"run {i + 1}/{a.runs} done ({time.time() - started:.0f} s)", file=sys.stderr)

    pairs = list(zip(files, files[1:])) if a.pairs == "consecutive" else list(itertools.combinations(files, 2))
    rows = flagged = improved = pairs_flagged = 0
    by_timing = {}
    planted_found = planted_total = planted_alone = 0
    for base, new in pairs:
        p = subprocess.run([a.meshbench, "compare", base, new, "--format", "json", "--threshold", a.threshold],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):
            sys.exit(f"compare failed: {p.stderr}")
        data = json.loads(p.stdout)
        rows += len(data["rows"])
        bad = [r for r in data["rows"] if r["verdict"] in ("regression", "wrong")]
        flagged += len(bad)
        improved += sum(1 for r in data["rows"] if r["verdict"] == "improvement")
        pairs_flagged += 1 if bad else 0
        for r in data["rows"]:
            t = by_timing.setdefault(r["timing"], [0, 0])
            t[0] += 1
            t[1] += r["verdict"] == "regression"
        planted = os.path.join(work, "planted.h5")
        key = plant_slowdown(new, planted, a.factor)
        q = subprocess.run([a.meshbench, "compare", base, planted, "--format", "json", "--threshold", a.threshold],
                           capture_output=True, text=True)
        d = json.loads(q.stdout)
        hit = [r for r in d["rows"] if r["verdict"] == "regression" and r["base_mapping"] == key["mapping"] and r["dim"] == key["dim"]
               and r["op"] == key["op"] and r["bytes"] == key["bytes"] and r["timing"] == key["timing"]]
        planted_total += 1
        planted_found += 1 if hit else 0
        planted_alone += 1 if hit and len([r for r in d["rows"] if r["verdict"] == "regression"]) == 1 else 0
        os.remove(planted)

    print(f"configuration: mpirun -np {a.np} meshbench {' '.join(RUN)} {a.extra}".rstrip())
    print(f"runs: {a.runs}; {a.pairs} pairs compared: {len(pairs)}; threshold {a.threshold}")
    print(f"points compared: {rows}; flagged as regressions: {flagged} ({100.0 * flagged / max(rows, 1):.2f}% of points); "
          f"flagged as improvements: {improved}")
    for timing, (n, f) in sorted(by_timing.items()):
        print(f"  {timing}: {f} of {n} points flagged ({100.0 * f / max(n, 1):.2f}%)")
    print(f"pairs with any regression flagged (a CI gate would fail): {pairs_flagged} of {len(pairs)} "
          f"({100.0 * pairs_flagged / max(len(pairs), 1):.0f}%)")
    print(f"planted {100 * (a.factor - 1):.0f}% slowdown in the newer run's quietest point: found in {planted_found} of {planted_total} pairs"
          f" ({planted_alone} with nothing else flagged)")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
