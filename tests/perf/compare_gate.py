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

--new-size K judges K new runs at once (`compare BASE… -- NEW1 … NEWK`, the plants put into
each of them): the judged run and the K - 1 runs measured after it (TCP: K TCP runs).
--window W draws the baselines only from the W runs measured just before and the W just
after the new ones, as a gate that interleaves baseline and new launches (A B A B …) would
have them; 0 (the default) draws from every run.
--interleaved judges as `compare --interleaved` does: the new runs are every other run of the
batch (the judged run, then 2, 4, … after it) and the baselines the K + 1 runs between and
around them (A B A B … A), so --size and --window do not apply. The TCP runs are then measured
alternately with honest runs of their own (tcpbaseNN.h5), and judged the same way.
--history H (with --interleaved) gives compare the H honest runs measured before each judged
window as --history (the noise from their successive differences); windows with fewer runs
before them are not judged. The TCP windows get the last H honest runs.

  tests/perf/compare_gate.py --meshbench build/meshbench --np 2 --runs 12 --tcp 2 --keep /tmp/gate-runs
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from mbtest import measuring_env, work_folder  # noqa: E402
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


def compare(a, base, new, history=()):
    earlier = [arg for h in history for arg in ("--history", h)]
    p = subprocess.run([a.meshbench, "compare", *base, "--", *new, "--format", "json", *earlier, *a.compare_args.split()],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1, 3):
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
    ap.add_argument("--new-size", type=int, default=1, help="new runs judged together")
    ap.add_argument("--window", type=int, default=0, help="baselines from the W runs before and after the new ones (0: all)")
    ap.add_argument("--interleaved", action="store_true", help="every other run new, the runs around them baselines (compare --interleaved)")
    ap.add_argument("--history", type=int, default=0, help="interleaved: the H honest runs before each window as compare --history")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra", default="", help="extra run options, e.g. '--rounds 3'")
    ap.add_argument("--compare-args", default="", help="extra compare options")
    ap.add_argument("--keep", help="keep the run files in this folder (reused if present)")
    ap.add_argument("--json", help="write every outcome here")
    a = ap.parse_args()
    if a.interleaved:
        a.size, a.window = a.new_size + 1, 0
        a.compare_args += " --interleaved"
    if a.new_size < 1 or a.runs < a.new_size + a.size or (a.tcp and a.tcp < a.new_size):
        sys.exit("compare_gate: error: needs --runs >= --new-size + --size and --tcp 0 or >= --new-size")
    if a.history and (not a.interleaved or a.runs < a.history + 2 * a.new_size + 2):
        sys.exit("compare_gate: error: --history needs --interleaved and --runs >= --history + 2 --new-size + 2")
    env = measuring_env(a.np)
    work, _scratch = work_folder(a.keep, "mb-gate-")
    honest, walls = [], []
    for i in range(a.runs):
        path, wall = measure(a, env, work, f"run{i:02d}.h5")
        honest.append(path)
        walls.append(wall)
    tcp, tcp_base = [], []
    for i in range(a.tcp):
        if a.interleaved:
            tcp_base.append(measure(a, env, work, f"tcpbase{i:02d}.h5")[0])
        tcp.append(measure(a, env, work, f"tcp{i:02d}.h5", {"OMPI_MCA_btl": "tcp,self"})[0])
    if a.interleaved and a.tcp:
        tcp_base.append(measure(a, env, work, f"tcpbase{a.tcp:02d}.h5")[0])
    rng = random.Random(a.seed)
    # The planted copies are derived and removed one by one; the folder goes at exit too, so that
    # a reused --keep folder does not collect one per invocation.
    planted = tempfile.TemporaryDirectory(prefix="mb-gate-planted-", dir=work)
    planted_dir = planted.name
    outcomes = {"honest": [], "op_size_10": [], "point_20": [], "uniform_10": [], "tcp": []}
    by_state = {"differs": 0, "set_aside": 0, "new_set_aside": 0, "compared": 0}  # over every comparison made
    pairs = []  # interleaved: the (new, baseline) pairs each comparison judged

    def note_state(data):
        by_state["compared"] += 1
        by_state["differs"] += int(bool(data.get("state_differs")))
        by_state["set_aside"] += int(bool(data.get("set_aside")))
        by_state["new_set_aside"] += int(bool(data.get("new_set_aside")))
        if a.interleaved:
            pairs.append(int(data.get("pairs", 0)))

    k = a.new_size

    def news_of(i, runs):
        """The judged run and the k - 1 runs measured after it (wrapping round); interleaved,
        every other run from the judged one."""
        if a.interleaved:
            return [runs[i + 2 * j] for j in range(k)]
        return [runs[(i + j) % len(runs)] for j in range(k)]

    def candidates(i):
        if a.interleaved:
            return [honest[i - 1 + 2 * j] for j in range(k + 1)]
        taken = {(i + j) % len(honest) for j in range(k)}
        others = [h for j, h in enumerate(honest) if j not in taken]
        near = [honest[j] for j in range(i - a.window, i + k + a.window) if 0 <= j < len(honest) and j not in taken]
        return near if a.window > 0 and len(near) >= a.size else others

    # Interleaved, a judged run needs a baseline before it and its last new run one after.
    judged = range(1 + a.history, len(honest) - 2 * k + 1) if a.interleaved else range(len(honest))

    def history_of(i):
        """The a.history honest runs measured before window i's first baseline (honest[i - 1])."""
        return honest[i - 1 - a.history:i - 1] if a.history else []

    def planted_copies(news, tag, **plant):
        paths = []
        for j, new in enumerate(news):
            path = os.path.join(planted_dir, f"{tag}_{j}.h5")
            plant_noise(new, path, 0.0, seed=0, **plant)
            paths.append(path)
        return paths

    whole_run_named = 0
    reach = {}  # level -> [(called_ratio, found_95_ratio)] over the honest comparisons (None: never)
    for i in judged:
        news = news_of(i, honest)
        others = candidates(i)
        earlier = history_of(i)
        with h5py.File(news[0], "r") as f:
            m = f["measurements"][:]
        big = sorted({int(b) for b in m["bytes"] if int(b) >= 65536})
        for s in range(a.sets):
            base = rng.sample(others, a.size)
            # Interleaved, every set has the same baselines: the honest comparison is made once.
            if s == 0 or not a.interleaved:
                code, data = compare(a, base, news, earlier)
                note_state(data)
                outcomes["honest"].append(code)
                for level, r in data.get("detectable", {}).items():
                    reach.setdefault(level, []).append((r["called_ratio"], r["found_95_ratio"]))
            # Plants: copies of the new runs (no added noise) with one change each. The runs
            # share their points' order (one configuration), so one index plants the same point.
            nbytes = rng.choice(big)
            op = rng.choice(sorted({r["op"].decode() for r in m if int(r["bytes"]) == nbytes}))
            idx = op_size_indices(news[0], op, nbytes)
            p1 = planted_copies(news, f"op{i}_{s}", only={x: 1.10 for x in idx})
            code, data = compare(a, base, p1, earlier)
            note_state(data)
            found = any(f["verdict"] == "regressed" and ((f["level"] == "op_size" and f["op"] == op and f["bytes"] == nbytes) or f["level"] == "run")
                        for f in data["families"]) or any(
                p["verdict"] == "regressed" and p["op"] == op and p["bytes"] == nbytes for p in data["points"])
            outcomes["op_size_10"].append([code, found])
            point = rng.randrange(len(m))
            p2 = planted_copies(news, f"pt{i}_{s}", only={point: 1.20})
            code, data = compare(a, base, p2, earlier)
            note_state(data)
            outcomes["point_20"].append([code, data["points"][point]["verdict"] == "regressed" if point < len(data["points"]) else False])
            p3 = planted_copies(news, f"all{i}_{s}", whole=1.10)
            code, data = compare(a, base, p3, earlier)
            note_state(data)
            outcomes["uniform_10"].append([code, any(f["level"] == "run" and f["verdict"] == "regressed" for f in data["families"])])
            for path in p1 + p2 + p3:
                os.remove(path)
    tcp_judged = [(tcp_base[t:t + k + 1], tcp[t:t + k]) for t in range(len(tcp) - k + 1)] if a.interleaved else \
        [(rng.sample(honest, a.size), news_of(t, tcp)) for t in range(len(tcp)) for _ in range(a.sets)]
    for base, news in tcp_judged:
        code, data = compare(a, base, news, honest[len(honest) - a.history:] if a.history else [])
        note_state(data)
        named = "whole run regression" in data["headline"] and any(c["name"] == "OMPI_MCA_btl" for c in data["changes"])
        whole_run_named += int(named)
        outcomes["tcp"].append([code, named])
    n = len(outcomes["honest"])
    print(f"{a.runs} honest runs of `mpirun -np {a.np} meshbench {' '.join(RUN + a.extra.split())}`, "
          f"median wall {sorted(walls)[len(walls) // 2]:.1f} s (0 = reused); baseline sets of {a.size}, {a.sets} per judged run, "
          f"{k} new run(s) per comparison, baselines from "
          f"{'the runs between and around them (interleaved)' if a.interleaved else 'every run' if a.window <= 0 else f'the {a.window} runs either side'}\n")
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
    for path in honest + tcp_base + tcp:
        with h5py.File(path, "r") as f:
            if "state_probes" in f:
                st = f["state_probes"][:]
                kept = sorted(float(x) for x in st["core_to_core_ns"][st["kept"] == 1])
                states.append(f"{os.path.basename(path)} {kept[len(kept) // 2]:.0f} ns")
            else:
                states.append(f"{os.path.basename(path)} -")
    print(f"\nmachine state per run (median core-to-core round trip of kept visits): {', '.join(states)}")
    print(f"comparisons where the new run's state differed from every pair of baselines (inconclusive by state): "
          f"{by_state['differs']} of {by_state['compared']}; with baselines set aside: {by_state['set_aside']}; "
          f"with new runs set aside (interleaved, no baseline of their state): {by_state['new_set_aside']}")
    if pairs:
        full = 2 * k
        print(f"pairs judged per comparison (interleaved; {full} when every new run has a baseline of its state on both "
              f"sides): median {statistics.median(pairs):g}, fewer than {full} in {sum(p < full for p in pairs)} of {len(pairs)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": honest, "tcp": tcp, "walls_s": walls, "outcomes": outcomes, "reach": reach, "pairs": pairs}, f,
                      indent=1)


if __name__ == "__main__":
    main()
