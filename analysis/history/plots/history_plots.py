"""meshbench history --plot: one PNG per family with a change, from history's JSON (docs/report.md).

Embedded in the meshbench binary at build time and run beside plots.py (report --plot's script,
whose matplotlib set-up, argument reading and save() it uses): `python3 history_plots.py HISTORY.json OUTDIR`. The
JSON is history's --format json plus "plots": [{"configuration", "series", "file"}], the family
series to draw (indexes into "configurations" and their "series") and their file names. Prints
each file it writes, one per line; exit status 3 when matplotlib is missing.
"""
import statistics
import sys

from plots import FixedLocator, plt, read_arguments, save  # exits 3 when matplotlib is missing


def segments(values, changes):
    """(first run, last run, median) of each stretch between changes, runs numbered from 1."""
    starts = [1] + sorted(c["run"] for c in changes) + [len(values) + 1]
    return [(a, b - 1, statistics.median(values[a - 1:b - 1])) for a, b in zip(starts, starts[1:]) if b > a]


def change_label(c):
    pct = (c["ratio"] - 1) * 100
    what = c.get("provenance_brief") or "nothing recorded changed"
    return f"run {c['run']}: ×{c['ratio']:.3f} ({pct:+.1f}%), p = {c['p_value']:.2g}\n{what}"


def plot_series(config, series, out_dir, name):
    values = series["values"]
    runs = list(range(1, len(values) + 1))
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    ax.axhline(1.0, color="gray", linewidth=0.8, linestyle=":", label="usual level (1.0)")
    ax.plot(runs, values, marker="o", markersize=4, linewidth=1, color="tab:blue", label="level in each run")
    for k, (first, last, median) in enumerate(segments(values, series["changes"])):
        ax.hlines(median, first - 0.3, last + 0.3, colors="tab:orange", linewidth=2.2,
                  label="median of the runs between changes" if k == 0 else None)
        ax.annotate(f"{median:.3f}", (last + 0.3, median), fontsize=7, color="tab:orange", xytext=(2, 2), textcoords="offset points")
    for k, c in enumerate(sorted(series["changes"], key=lambda c: c["run"])):
        ax.axvline(c["run"], color="tab:red", linewidth=1.2, linestyle="--", label="change: first run of the new level" if k == 0 else None)
        ax.text(c["run"] + 0.1, 0.97 - 0.16 * k, change_label(c), transform=ax.get_xaxis_transform(), fontsize=7.5, va="top", ha="left",
                color="tab:red", bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1.5})
    ax.xaxis.set_major_locator(FixedLocator(runs if len(runs) <= 40 else runs[::-(-len(runs) // 20)]))
    ax.set_xlim(0.5, len(values) + 0.9)  # room for the last median's label
    lo, hi = min(values + [1.0]), max(values + [1.0])
    pad = max(hi - lo, 0.02) * 0.15
    ax.set_ylim(lo - pad, hi + pad * 3.5)  # room above for the change labels
    ax.set_xlabel("run (in start-time order)")
    ax.set_ylabel("family level (1.0 = its usual level)")
    ax.set_title(f"{series['name']}: {len(series['changes'])} change(s)\n{config['layout']} on {config['topology']}", fontsize=9.5)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, frameon=False)
    fig.tight_layout()
    save(fig, out_dir, name)


def main():
    arguments = read_arguments("history_plots.py HISTORY.json OUTDIR")
    if arguments is None:
        return 2
    history, out_dir = arguments
    for p in history["plots"]:
        config = history["configurations"][p["configuration"]]
        plot_series(config, config["series"][p["series"]], out_dir, p["file"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
