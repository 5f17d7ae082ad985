#!/usr/bin/python3
"""How well `meshbench compare BASE… -- NEW` gates on this machine: false alarms on honest
reruns, and how often planted and real slowdowns are found, each run judged against a baseline
set of other honest runs.

Runs one configuration RUNS times under mpirun (honest reruns) and TCP times with Open MPI's
shared memory replaced by TCP (OMPI_MCA_btl=tcp,self: every point slower). Then, for each
honest run and SETS baseline sets of SIZE other honest runs (drawn with a seeded generator):
  - honest: compare exits 1 = a false alarm;
  - planted (report_h5edit): one op at one size >= 64 KiB 10% slower wherever it runs; one
    point 20% slower; every point 10% slower;
and each TCP run against the same number of baseline sets. Prints a Markdown table and writes
the raw outcomes as JSON (--json). Exit status 0: it measures, it does not judge.

  tests/perf/compare_gate.py --meshbench build/meshbench --np 2 --runs 12 --tcp 2 --keep /tmp/gate-runs
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import MPI_ENV  # noqa: E402
from report_h5edit import op_size_indices, plant_noise  # noqa: E402

import h5py  # noqa: E402

RUN = ["run", "--tp", "2", "-b", "1K", "-e", "4M", "-f", "4"]


def measure(a, env, work, name, extra_env=None):
    out = os.path.join(work, name)
    if os.path.exists(out):
        return out, 0.0
    e = dict(env)
    e.update(extra_env or {})
    t0 = time.time()
    cmd = ["mpirun", "-np", str(a.np), a.meshbench, *RUN, *a.extra.split(), "--out", out]
    p = subprocess.run(cmd, env=e, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{name} failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return out, time.time() - t0


def compare(a, base, new):
    p = subprocess.run([a.meshbench, "compare", *base, "--", new, "--format", "json", *a.compare_args.split()], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"compare failed ({p.returncode}): {p.stderr}")
    return p.returncode, json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meshbench", default="build/meshbench")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--tcp", type=int, default=2, help="runs over TCP instead of shared memory")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--size", type=int, default=3, help="baseline runs per set")
    ap.add_argument("--sets", type=int, default=9, help="baseline sets per judged run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra", default="", help="extra run options, e.g. '--rounds 3'")
    ap.add_argument("--compare-args", default="", help="extra compare options")
    ap.add_argument("--keep", help="keep the run files in this folder (reused if present)")
    ap.add_argument("--json", help="write every outcome here")
    a = ap.parse_args()
    env = dict(os.environ)
    env.update(MPI_ENV)
    if a.np <= 2:
        env.pop("OMPI_MCA_mpi_yield_when_idle")  # adds noise when ranks do not outnumber cores
    scratch = None if a.keep else tempfile.TemporaryDirectory(prefix="mb-gate-")  # removed at exit
    work = a.keep or scratch.name
    os.makedirs(work, exist_ok=True)
    honest, walls = [], []
    for i in range(a.runs):
        path, wall = measure(a, env, work, f"run{i:02d}.h5")
        honest.append(path)
        walls.append(wall)
    tcp = [measure(a, env, work, f"tcp{i:02d}.h5", {"OMPI_MCA_btl": "tcp,self"})[0] for i in range(a.tcp)]
    rng = random.Random(a.seed)
    # The planted copies are derived and removed one by one; the folder goes at exit too, so that
    # a reused --keep folder does not collect one per invocation.
    planted = tempfile.TemporaryDirectory(prefix="mb-gate-planted-", dir=work)
    planted_dir = planted.name
    outcomes = {"honest": [], "op_size_10": [], "point_20": [], "uniform_10": [], "tcp": []}
    by_state = {"differs": 0, "set_aside": 0, "compared": 0}  # over every comparison made

    def note_state(data):
        by_state["compared"] += 1
        by_state["differs"] += int(bool(data.get("state_differs")))
        by_state["set_aside"] += int(bool(data.get("set_aside")))

    whole_run_named = 0
    reach = {}  # level -> [(called_ratio, found_95_ratio)] over the honest comparisons (None: never)
    for i, new in enumerate(honest):
        others = [h for h in honest if h != new]
        with h5py.File(new, "r") as f:
            m = f["measurements"][:]
        big = sorted({int(b) for b in m["bytes"] if int(b) >= 65536})
        for s in range(a.sets):
            base = rng.sample(others, a.size)
            code, data = compare(a, base, new)
            note_state(data)
            outcomes["honest"].append(code)
            for level, r in data.get("detectable", {}).items():
                reach.setdefault(level, []).append((r["called_ratio"], r["found_95_ratio"]))
            # Plants: a copy of the new run (no added noise) with one change each.
            nbytes = rng.choice(big)
            op = rng.choice(sorted({r["op"].decode() for r in m if int(r["bytes"]) == nbytes}))
            idx = op_size_indices(new, op, nbytes)
            p1 = os.path.join(planted_dir, f"op{i}_{s}.h5")
            plant_noise(new, p1, 0.0, seed=0, only={k: 1.10 for k in idx})
            code, data = compare(a, base, p1)
            note_state(data)
            found = any(f["verdict"] == "regressed" and ((f["level"] == "op_size" and f["op"] == op and f["bytes"] == nbytes) or f["level"] == "run")
                        for f in data["families"]) or any(
                p["verdict"] == "regressed" and p["op"] == op and p["bytes"] == nbytes for p in data["points"])
            outcomes["op_size_10"].append([code, found])
            point = rng.randrange(len(m))
            p2 = os.path.join(planted_dir, f"pt{i}_{s}.h5")
            plant_noise(new, p2, 0.0, seed=0, only={point: 1.20})
            code, data = compare(a, base, p2)
            note_state(data)
            outcomes["point_20"].append([code, data["points"][point]["verdict"] == "regressed" if point < len(data["points"]) else False])
            p3 = os.path.join(planted_dir, f"all{i}_{s}.h5")
            plant_noise(new, p3, 0.0, seed=0, whole=1.10)
            code, data = compare(a, base, p3)
            note_state(data)
            outcomes["uniform_10"].append([code, any(f["level"] == "run" and f["verdict"] == "regressed" for f in data["families"])])
            for path in (p1, p2, p3):
                os.remove(path)
    for t in tcp:
        for s in range(a.sets):
            base = rng.sample(honest, a.size)
            code, data = compare(a, base, t)
            note_state(data)
            named = "whole run regression" in data["headline"] and any(c["name"] == "OMPI_MCA_btl" for c in data["changes"])
            whole_run_named += int(named)
            outcomes["tcp"].append([code, named])
    n = len(outcomes["honest"])
    print(f"{a.runs} honest runs of `mpirun -np {a.np} meshbench {' '.join(RUN + a.extra.split())}`, "
          f"median wall {sorted(walls)[len(walls) // 2]:.1f} s (0 = reused); baseline sets of {a.size}, {a.sets} per judged run\n")
    print("| case | comparisons | exit 1 | found |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| honest rerun (false alarm) | {n} | {sum(c == 1 for c in outcomes['honest'])} | - |")
    for key, label in (("op_size_10", "one op at one size >= 64 KiB +10%, everywhere"), ("point_20", "one point +20%"),
                       ("uniform_10", "every point +10% (whole run)")):
        rows = outcomes[key]
        print(f"| {label} | {len(rows)} | {sum(c == 1 for c, _ in rows)} | {sum(bool(f) for _, f in rows)} |")
    if tcp:
        rows = outcomes["tcp"]
        print(f"| shared memory -> TCP (whole run, change named) | {len(rows)} | {sum(c == 1 for c, _ in rows)} | {whole_run_named} |")
    if reach:
        def med(values):
            v = sorted(float("inf") if x is None else x for x in values)
            m = v[len(v) // 2]
            return "never" if m == float("inf") else f"+{(m - 1) * 100:.1f}%"
        print("\nwhat the baseline sets can detect (compare's `detectable`, median over the honest comparisons):\n")
        print("| level | called from | found 95% from |")
        print("| --- | ---: | ---: |")
        for level, rows in reach.items():
            print(f"| {level} | {med(c for c, _ in rows)} | {med(f for _, f in rows)} |")
    states = []
    for path in honest + tcp:
        with h5py.File(path, "r") as f:
            if "state_probes" in f:
                st = f["state_probes"][:]
                kept = sorted(float(x) for x in st["core_to_core_ns"][st["kept"] == 1])
                states.append(f"{os.path.basename(path)} {kept[len(kept) // 2]:.0f} ns")
            else:
                states.append(f"{os.path.basename(path)} -")
    print(f"\nmachine state per run (median core-to-core round trip of kept visits): {', '.join(states)}")
    print(f"comparisons where the new run's state differed from every pair of baselines (inconclusive by state): "
          f"{by_state['differs']} of {by_state['compared']}; with baselines set aside: {by_state['set_aside']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": honest, "tcp": tcp, "walls_s": walls, "outcomes": outcomes, "reach": reach}, f, indent=1)


if __name__ == "__main__":
    main()
