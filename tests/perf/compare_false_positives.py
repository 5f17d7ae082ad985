#!/usr/bin/python3
"""False-positive rate of `meshbench compare` over honest reruns on this machine, and its power
on the same reruns with a planted slowdown.

Runs one small configuration RUNS times under mpirun (4 ranks, as the integration tests), then
compares consecutive runs (or --pairs all): every flagged point there is a false positive,
and so is every pair compare exits 1 on, since nothing changed. Then, for each pair and each
--factors F, plants an F-times slowdown into the newer run's quietest point
(report_h5edit.plant_slowdown) and counts how often compare flags that point; slows one op at
one size everywhere (all_reduce at the largest size: every dimension, mapping and timing) and
counts how often that op and size is flagged; and slows every per-iteration point of one
collective (ep all_to_all: all mappings, all sizes) and counts how often that family is flagged.

  tests/perf/compare_false_positives.py --meshbench build/meshbench --runs 16 --pairs all [--keep DIR]
Prints the figures; exit status 0 (it measures, it does not judge).
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import measuring_env, work_folder  # noqa: E402
from report_h5edit import plant_op_size_slowdown, plant_op_slowdown, plant_slowdown  # noqa: E402

RUN = ["run", "--tp", "2", "--ep", "2", "--etp", "1", "-b", "1K", "-e", "256K", "-f", "4", "--budget", "0.1",
       "--min-iters", "30", "--batches", "3"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meshbench", default="build/meshbench")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--pairs", choices=["consecutive", "all"], default="consecutive")
    ap.add_argument("--threshold", default="0.05")
    ap.add_argument("--factors", default="1.10,2,5", help="planted slowdowns, comma-separated")
    ap.add_argument("--keep", help="keep the run files in this folder (reused if present)")
    ap.add_argument("--extra", default="", help="extra run options, e.g. '--timing per_iteration'")
    a = ap.parse_args()
    env = measuring_env(a.np)
    work, _scratch = work_folder(a.keep, "mb-fp-")
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
    factors = [float(f) for f in a.factors.split(",")]

    def compare(base, new):
        p = subprocess.run([a.meshbench, "compare", base, new, "--format", "json", "--threshold", a.threshold, "--bootstrap", "0"],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1, 3):
            sys.exit(f"compare failed: {p.stderr}")
        return p.returncode, json.loads(p.stdout)

    rows = flagged = improved = pairs_flagged = pairs_failed = shifts = families = pairs_family = 0
    by_timing = {}
    found = {f: 0 for f in factors}
    alone = {f: 0 for f in factors}
    op_found = {f: [0, 0, 0, 0] for f in factors}  # points flagged, points planted, pairs failing, family flagged
    size_found = {f: 0 for f in factors}
    for base, new in pairs:
        rc, data = compare(base, new)
        rows += len(data["points"])
        bad = [r for r in data["points"] if r["verdict"] in ("regressed", "wrong")]
        flagged += len(bad)
        improved += sum(1 for r in data["points"] if r["verdict"] == "improved")
        pairs_flagged += 1 if bad else 0
        pairs_failed += 1 if rc == 1 else 0
        shifts += sum(1 for s in data["families"] if s["level"] == "run" and s["verdict"] == "regressed")
        fam = sum(1 for x in data["families"] if x["level"] != "run" and x["verdict"] == "regressed")
        families += fam
        pairs_family += 1 if fam else 0
        for r in data["points"]:
            t = by_timing.setdefault(r["timing"], [0, 0])
            t[0] += 1
            t[1] += r["verdict"] == "regressed"
        for f in factors:
            planted = os.path.join(work, "planted.h5")
            key = plant_slowdown(new, planted, f)
            _, d = compare(base, planted)
            hit = [r for r in d["points"] if r["verdict"] == "regressed" and r["mapping"] == key["mapping"] and r["dim"] == key["dim"]
                   and r["op"] == key["op"] and r["bytes"] == key["bytes"] and r["timing"] == key["timing"]]
            found[f] += 1 if hit else 0
            alone[f] += 1 if hit and sum(1 for r in d["points"] if r["verdict"] == "regressed") == 1 else 0
            largest = max(r["bytes"] for r in data["points"])
            plant_op_size_slowdown(new, planted, f, "all_reduce", largest)
            _, d = compare(base, planted)
            size_found[f] += 1 if any(x["verdict"] == "regressed" and x["op"] == "all_reduce" and x["bytes"] == largest
                                      for x in d["families"]) else 0
            keys = plant_op_slowdown(new, planted, f, "ep", "all_to_all")
            rc2, d = compare(base, planted)
            planted_keys = {(k["mapping"], k["bytes"]) for k in keys}
            op_found[f][0] += sum(1 for r in d["points"] if r["verdict"] == "regressed" and r["dim"] == "ep" and r["op"] == "all_to_all"
                                  and r["timing"] == "per_iteration" and (r["mapping"], r["bytes"]) in planted_keys)
            op_found[f][1] += len(keys)
            op_found[f][2] += 1 if rc2 == 1 else 0
            op_found[f][3] += 1 if any(x["verdict"] == "regressed" and x["dim"] == "ep" and x["op"] == "all_to_all"
                                       and x["timing"] == "per_iteration" for x in d["families"]) else 0
            os.remove(planted)

    n = max(len(pairs), 1)
    print(f"configuration: mpirun -np {a.np} meshbench {' '.join(RUN)} {a.extra}".rstrip())
    print(f"runs: {a.runs}; {a.pairs} pairs compared: {len(pairs)}; threshold {a.threshold}")
    print(f"points compared: {rows}; flagged as regressions: {flagged} ({100.0 * flagged / max(rows, 1):.3f}% of points); "
          f"flagged as improvements: {improved}")
    for timing, (m, f) in sorted(by_timing.items()):
        print(f"  {timing}: {f} of {m} points flagged ({100.0 * f / max(m, 1):.3f}%)")
    print(f"pairs with a flagged point: {pairs_flagged} of {len(pairs)}; families flagged: {families} in {pairs_family} pairs; "
          f"whole-run shifts flagged: {shifts}")
    print(f"pairs compare exits 1 on (a CI gate would fail): {pairs_failed} of {len(pairs)} ({100.0 * pairs_failed / n:.1f}%)")
    for f in factors:
        print(f"planted {f:g}x slowdown in the newer run's quietest point: flagged in {found[f]} of {len(pairs)} pairs "
              f"({100.0 * found[f] / n:.0f}%; {alone[f]} with nothing else flagged)")
    for f in factors:
        print(f"planted {f:g}x slowdown of all_reduce at the largest size everywhere: flagged in {size_found[f]} of {len(pairs)} pairs "
              f"({100.0 * size_found[f] / n:.0f}%)")
    for f in factors:
        pts, total, fails, family = op_found[f]
        print(f"planted {f:g}x slowdown of every per-iteration ep all_to_all point: the family flagged in {family} of {len(pairs)} pairs "
              f"({100.0 * family / n:.0f}%), {pts} of {total} points flagged one by one, compare exits 1 in {fails} pairs")


if __name__ == "__main__":
    main()
