#!/usr/bin/python3
"""How well any threshold on compare's interleaved effect could gate, on runs already kept:
the ceiling that the machine's honest noise puts on finding a single point (or one op at one
size) slowed down, whatever statistic sets the threshold.

Reads a folder that `compare_gate.py --keep DIR` filled (DIR/run*.h5, honest runs in launch
order) and forms the same windows as `compare_gate.py --interleaved --new-size K --history H`:
new runs i, i + 2, …, i + 2(K - 1), the K + 1 runs around them as baselines. As compare does
under --interleaved, each new run is paired with the nearest baseline of its machine state on
each side (state: the median core-to-core reading of the kept probe visits; two runs differ
when one reads more than twice the other). For every window it computes, from the runs'
median times:
  - per point, the effect compare judges a slowdown on: the lower median over the pairs of
    (log new - log baseline) less the whole run's shift (the median of that over the points of
    the point's timing mode);
  - per op at one size in every mapping, dimension and timing mode, the same of the lower median
    over its points of each pair's difference (more than half of a family's points must move,
    as compare's family verdict requires; with two points, both).
A planted slowdown of x moves those effects by log(1 + x) (one point barely moves the whole
run's median). So, for a threshold set at the largest honest value of the level over all windows
(no honest window would alarm) and at the next few down, it prints how many windows' planted
point or op/size would clear it: an optimistic ceiling (the threshold is chosen on the same
windows) for any rule with one threshold per level. Exit status 0: it measures, it does not
judge.

  tests/perf/gate_ceiling.py --read /tmp/gate-runs --new-size 2 --history 40
"""
import argparse
import glob
import math
import os
import sys

import h5py
import numpy as np

STATE_FACTOR = 2.0  # compare's kMachineStateFactor (analysis/compare/compare.hpp)


def load(folder):
    paths = sorted(glob.glob(os.path.join(folder, "run[0-9]*.h5")), key=lambda p: int(os.path.basename(p)[3:-3]))
    logs, states, keys = [], [], None
    for path in paths:
        with h5py.File(path, "r") as f:
            m = f["measurements"][:]
            here = [(r["op"].decode(), int(r["bytes"]), r["timing"].decode()) for r in m]
            order = sorted(range(len(here)), key=lambda i: here[i])
            if keys is None:
                keys = [here[i] for i in order]
            elif [here[i] for i in order] != keys:
                sys.exit(f"gate_ceiling: error: {path} holds other points than {paths[0]}; give one configuration's runs")
            logs.append(np.log(m["t_median_us"][order]))
            probes = f["state_probes"][:] if "state_probes" in f else None
            kept = probes["core_to_core_ns"][probes["kept"] == 1] if probes is not None else []
            states.append(float(np.median(kept)) if len(kept) else 0.0)
    return paths, np.array(logs), states, keys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--read", required=True, help="a folder compare_gate.py --keep filled")
    ap.add_argument("--new-size", type=int, default=2)
    ap.add_argument("--history", type=int, default=0, help="judge the windows compare_gate.py judges with --history H")
    ap.add_argument("--show", type=int, default=4, help="thresholds shown: the largest honest value and the next ones down")
    a = ap.parse_args()
    paths, logs, states, keys = load(a.read)
    k = a.new_size
    if len(paths) < a.history + 2 * k + 2:
        sys.exit(f"gate_ceiling: error: {len(paths)} runs in {a.read}, too few for --new-size {k} --history {a.history}; "
                 "give a fuller folder or smaller values")
    timing = np.array([t for _, _, t in keys])
    # Each run's points less the median of its timing mode: a pair's difference of these is the
    # difference less the whole run's shift (the median of a difference of two runs' points equals
    # the difference of their medians only approximately; the gap is far below the effects here).
    centred = logs.copy()
    for t in set(timing):
        centred[:, timing == t] -= np.median(centred[:, timing == t], axis=1, keepdims=True)
    families = {}
    for p, (op, size, _) in enumerate(keys):
        families.setdefault((op, size), []).append(p)
    families = list(families.values())

    def differ(x, y):
        return x > 0 and y > 0 and max(x, y) > STATE_FACTOR * min(x, y)

    def pairs(i):
        news, bases = [i + 2 * j for j in range(k)], [i - 1 + 2 * j for j in range(k + 1)]
        out = []
        for n in news:
            for side in (-1, 1):
                same = [b for b in bases if (b - n) * side > 0 and not differ(states[b], states[n])]
                if same:
                    out.append((n, min(same, key=lambda b: abs(b - n))))
        return out

    def lower_median(values):
        return sorted(values)[(len(values) - 1) // 2]

    point_effects, family_effects, windows = [], [], 0
    for i in range(1 + a.history, len(paths) - 2 * k + 1):
        pr = pairs(i)
        if not pr:
            continue
        windows += 1
        d = np.array([centred[n] - centred[b] for n, b in pr])
        point_effects.append([lower_median(d[:, p]) for p in range(d.shape[1])])
        family_effects.append([lower_median([lower_median([d[q, p] for p in members]) for q in range(len(pr))]) for members in families])
    points, fams = np.array(point_effects), np.array(family_effects)
    print(f"{len(paths)} runs in {a.read}; {windows} windows of {k} new runs (interleaved, the first judged run "
          f"{1 + a.history}); {points.shape[1]} points, {fams.shape[1]} op/size families (every mapping, dimension and timing mode)\n")
    print("| level | planted | largest honest effects (per window, descending) | threshold: honest alarms -> planted found |")
    print("| --- | --- | --- | --- |")
    for label, effects, plant in (("point", points, 0.20), ("point", points, 0.10), ("op at one size, everywhere", fams, 0.10),
                                  ("op at one size, everywhere", fams, 0.20)):
        largest = np.sort(effects.max(axis=1))[::-1]
        shown = " ".join(f"{math.expm1(x) * 100:+.1f}%" for x in largest[:a.show])
        found = "; ".join(f"{r} -> {np.mean(effects + math.log1p(plant) > largest[r]) * 100:.0f}%" for r in range(min(a.show, len(largest))))
        print(f"| {label} | +{plant * 100:.0f}% | {shown} | {found} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
