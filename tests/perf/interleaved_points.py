#!/usr/bin/python3
"""What a point's noise is between adjacent launches, and what `compare --interleaved` could find
at one point without its jump bound, from a flat folder of kept runs of one configuration
(run*.h5, as compare_gate.py --keep writes it), in start-time order.

  - Per point: the robust sigma of its successive differences (each run's log median less the
    run's whole-run shift per timing, 1.4826 MAD / sqrt 2) against the sigma its rounds give one
    run's median (the square root of the mean over the runs of (1.4826 MAD of the round medians)^2
    * pi / (2 R)); the ratio's median and range, and the correlation over the points.
  - Per K (--k): every window of 2K + 1 consecutive runs judged as B N B N ... B, each point's
    effect the lower median of its 2K adjacent differences (less each pair's whole-run shift),
    its sigma the baseline pairs' (robust, shrunk towards the level's pool with 10 pairs) pooled
    with the rounds' by degrees of freedom, the threshold Student's t at alpha / points (the
    first Benjamini-Hochberg step of the point level, --alpha per level). Prints the windows in
    which any honest point crossed it and the share of (window, point) pairs found when that
    point is made 20% slower in every new run. Compare's jump bound is left out on purpose:
    this is what the statistic alone would do (docs/report.md, "points under interleaving").
    --noise chooses the point's sigma: as compare pools it (the default); the rounds' variance
    plus one launch part for the level (the pool less the rounds' mean); or each point's own
    spread between successive launches over the --history runs measured before the window.
Exit status 0: it measures, it does not judge.

  tests/perf/interleaved_points.py /tmp/gate-runs --k 2 3 4 5
  tests/perf/interleaved_points.py /tmp/gate-runs --k 2 3 --noise history --history 40
"""
import argparse
import glob
import math
import os

import h5py
import numpy as np

KEY = ("mapping", "dim", "op", "timing", "concurrency")


def read(path):
    with h5py.File(path, "r") as f:
        medians = {tuple(r[k].decode() for k in KEY) + (int(r["bytes"]),): math.log(float(r["t_median_us"])) for r in f["measurements"][:]}
        rounds = {}
        for r in f["round_medians"][:] if "round_medians" in f else []:
            rounds.setdefault(tuple(r[k].decode() for k in KEY) + (int(r["bytes"]),), []).append(math.log(float(r["t_median_us"])))
        return f.attrs["started_at"], medians, rounds


def round_var(values):
    if len(values) < 2:
        return 0.0
    v = np.array(values)
    s = 1.4826 * np.median(np.abs(v - np.median(v)))
    return s * s * math.pi / (2 * len(v))


def pair_sigma(differences, axis=None):
    """One run's robust sigma from differences of two runs' log medians (1.4826 MAD / sqrt 2)."""
    return 1.4826 * np.median(np.abs(differences), axis=axis) / math.sqrt(2)


def t_upper(z, df):
    """Student's t upper tail by integrating the density (numpy only)."""
    x = np.linspace(z, z + 400, 400001)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return float(np.trapz(c * (1 + x * x / df) ** (-(df + 1) / 2), x))


def t_quantile(p, df):
    lo, hi = 0.0, 50.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_upper(mid, df) > p else (lo, mid)
    return hi


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--k", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--alpha", type=float, default=0.0025, help="false-alarm rate of the point level")
    ap.add_argument("--noise", choices=["pooled", "components", "history"], default="pooled",
                    help="pooled: the pairs' and the rounds' variance pooled by degrees of freedom (as compare "
                    "does); components: the rounds' variance plus a launch part shared by the level; history: "
                    "each point's spread between successive launches over the --history runs before the window")
    ap.add_argument("--history", type=int, default=20, help="runs before the window (--noise history)")
    a = ap.parse_args()
    runs = sorted((read(p) for p in glob.glob(os.path.join(a.folder, "run*.h5"))), key=lambda r: r[0])
    keys = sorted(set.intersection(*[set(m) for _, m, _ in runs]))
    x = np.array([[m[k] for k in keys] for _, m, _ in runs])
    rv = np.array([[round_var(r.get(k, [])) for k in keys] for _, _, r in runs])
    rounds = min(len(r.get(k, [])) for _, _, r in runs for k in keys)
    timing = np.array([k[3] for k in keys])
    points = len(keys)

    def shift(a_run, b_run):
        s = np.zeros(points)
        for t in set(timing):
            sel = timing == t
            s[sel] = np.median(a_run[sel] - b_run[sel])
        return s

    residual = x.copy()
    for t in set(timing):
        sel = timing == t
        residual[:, sel] -= np.median(x[:, sel] - np.median(x[:, sel], axis=0), axis=1)[:, None]
    adjacent = pair_sigma(np.diff(residual, axis=0), axis=0)
    from_rounds = np.sqrt(rv.mean(axis=0))
    print(f"{len(runs)} runs, {points} points, {rounds} rounds")
    if rounds >= 2:
        ratio = adjacent / from_rounds
        print(f"successive-launch sigma / rounds sigma per point: median {np.median(ratio):.2f}, "
              f"range {ratio.min():.2f}-{ratio.max():.2f}, correlation {np.corrcoef(adjacent, from_rounds)[0, 1]:.2f}; "
              f"median sigma {100 * np.median(adjacent):.1f}% between successive launches")
    for k in a.k:
        m = k + 1
        df_pairs = m - 1 + 10
        df_rounds = (2 * k + 1) * (rounds - 1) if rounds >= 2 else 0
        df = a.history - 2 if a.noise == "history" else df_pairs + df_rounds
        threshold = t_quantile(a.alpha / points, df)
        factor = math.sqrt((1 / m if m <= 2 else math.pi / (2 * m)) + (1 / k if k <= 2 else math.pi / (2 * k)))
        alarms, found, windows = 0, 0.0, 0
        # History: only windows with a.history runs before them.
        for w in range(a.history if a.noise == "history" else 0, len(runs) - 2 * k):
            window, var = x[w:w + 2 * k + 1], rv[w:w + 2 * k + 1]
            base, new = window[0::2], window[1::2]
            d = np.sort([new[j] - b - shift(new[j], b) for j in range(k) for b in (base[j], base[j + 1])], axis=0)
            effect = d[(len(d) - 1) // 2]
            pairs = np.array([base[i] - base[j] - shift(base[i], base[j]) for i in range(m) for j in range(i + 1, m)])
            own = pair_sigma(pairs, axis=0)
            pooled = pair_sigma(pairs)
            n_pairs = len(pairs)
            shrunk2 = (n_pairs * own ** 2 + 10 * pooled ** 2) / (n_pairs + 10)
            own_rounds = var.mean(axis=0)
            if a.noise == "history":
                # Each point's own noise between successive launches over the a.history runs
                # measured before the window (the whole-run shift taken out), as a gate that
                # kept its earlier baseline runs could learn it.
                sigma = pair_sigma(np.diff(residual[w - a.history:w], axis=0), axis=0)
            elif a.noise == "components" and df_rounds:
                # A point's noise between launches is the launch's part (one for the level: the
                # pool less what the rounds explain) plus its own rounds' part.
                launch = max(0.0, pooled ** 2 - float(own_rounds.mean()))
                sigma = np.sqrt(own_rounds + launch)
            else:
                sigma = np.sqrt((df_pairs * shrunk2 + df_rounds * own_rounds) / (df_pairs + df_rounds))
            noise = sigma * factor
            alarms += int((effect / noise).max() > threshold)
            found += float(np.mean((effect + math.log(1.2)) / noise > threshold))
            windows += 1
        print(f"k = {k}: threshold t({df}) {threshold:.2f}; honest windows with a point beyond it {alarms} of {windows}; "
              f"a point +20% in every new run found in {100 * found / windows:.0f}% of (window, point)")


if __name__ == "__main__":
    main()
