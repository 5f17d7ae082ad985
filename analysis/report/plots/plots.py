"""meshbench report --plot: PNG plots from the report's JSON (docs/report.md).

Embedded in the meshbench binary at build time and run with Debian's python3 and
python3-matplotlib: `python3 plots.py REPORT.json OUTDIR`. Prints each file it writes, one per
line. Exit status 3 when matplotlib is missing, so meshbench can say what to install.
The JSON carries "op_order", the ops in meshbench's table order, so that no op is named here, and
"charts": the figures the HTML page draws too (ranking.png, placement.png, busbw_<dim>.png,
predicted_vs_measured.png, group_spread.png), each described once in C++
(analysis/report/charts.hpp); draw_figure only draws a description.
"""
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.lines
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator
except ImportError as exc:  # the caller turns this into one line
    print(f"matplotlib is missing ({exc})", file=sys.stderr)
    sys.exit(3)


def size_label(b):
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    while b >= 1024 and u < len(units) - 1 and b % 1024 == 0:
        b //= 1024
        u += 1
    return f"{b} {units[u]}"


def size_axis(ax, sizes):
    """Log2 size axis with ticks at the measured sizes (at most about eight), in KiB/MiB/GiB."""
    ax.set_xscale("log", base=2)
    ticks = sorted(set(sizes))
    step = max(1, math.ceil(len(ticks) / 8))
    ticks = ticks[::step]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([size_label(int(round(t))) for t in ticks], rotation=30, ha="right")


def log_axis(axis):
    """Log axis ticked at 1, 2, 5 x 10^k with plain labels (values differ by orders of magnitude)."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)
    print(path)


def draw_bars(ax, chart):
    """Horizontal bars, the first category on top, the series stacked, each note at its bar's end."""
    categories = chart["y"]["categories"]
    ends = [0.0] * len(categories)
    for s in chart["series"]:
        for i, (value, category) in enumerate(s["points"]):
            c = int(round(category))
            ax.barh(c, value, left=ends[c], color=s["colour"], label=s["name"] if i == 0 else None)
            ends[c] += value
            if i < len(s["notes"]):
                ax.text(ends[c], c, f" {s['notes'][i]}", va="center", fontsize=8)
    top = max(ends + [chart["reference"] or 0.0])
    if chart["reference"] is not None:
        ax.axvline(chart["reference"], color="black", linewidth=0.8)
    ax.set_yticks(range(len(categories)))
    ax.set_yticklabels(categories)
    ax.invert_yaxis()
    ax.set_xlim(chart["x"]["from"], chart["x"]["from"] + (top - chart["x"]["from"]) * 1.12)
    ax.set_xlabel(chart["x"]["label"])
    ax.grid(True, axis="x", alpha=0.3)


def draw_ranges(ax, chart):
    """Per category a grey line from its least to its greatest value, then each series' dots (a
    later series' larger, over an earlier's), each note beside its dot."""
    categories = chart["x"]["categories"]
    values = {}
    for s in chart["series"]:
        for c, v in s["points"]:
            values.setdefault(int(round(c)), []).append(v)
    for c, vs in values.items():
        ax.vlines(c, min(vs), max(vs), color="gray", linewidth=1)
    for k, s in enumerate(chart["series"]):
        xs = [p[0] for p in s["points"]]
        ax.scatter(xs, [p[1] for p in s["points"]], s=14 if k == 0 else 30, color=s["colour"], zorder=3 + k)
        # Neighbours' notes alternate above and below their dot so that long host names do not collide.
        for (c, v), note in zip(s["points"], s["notes"]):
            ax.annotate(note, (c, v), textcoords="offset points", xytext=(4, 3 if int(round(c)) % 2 == 0 else -10), fontsize=6.5)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories)
    top = max((v for vs in values.values() for v in vs), default=1.0)
    ax.set_ylim(bottom=chart["y"]["from"], top=chart["y"]["from"] + (top - chart["y"]["from"]) * 1.12)
    ax.set_xlim(-0.5, len(categories) - 0.5 + 0.6)
    ax.set_ylabel(chart["y"]["label"])
    ax.grid(True, axis="y", alpha=0.3)


def dash_style(stroke):
    """A stroke's SVG stroke-dasharray ("12 4 2 4", "" for solid) as a matplotlib linestyle."""
    parts = [float(p) for p in stroke["dash"].split()]
    return (0, tuple(p / stroke["width"] for p in parts)) if parts else "solid"  # matplotlib scales dashes by the line width


def line_width(stroke):
    """A stroke's width in the page's pixels as a matplotlib line width in points (2.5 px: 2.2)."""
    return stroke["width"] * 0.88


def bowed_curve(a, b, steps=24):
    """A quadratic curve between two cell centres, bowed as the HTML page bows it: up into the
    gap above the row within a row, to the side between rows (y grows downwards)."""
    (x0, y0), (x1, y1) = a, b
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if y0 == y1:
        cy -= 1.1
    else:
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy)
        cx, cy = cx - dy / length, cy + dx / length
    ts = [i / steps for i in range(steps + 1)]
    return ([(1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1 for t in ts],
            [(1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1 for t in ts])


def draw_cells(ax, chart):
    """A grid of cells, the first row on top: the curves beneath, each series' cells in its colour
    with their notes inside, the column names above, the key of the curves' strokes below."""
    columns, rows = chart["x"]["categories"], chart["y"]["categories"]
    for c in chart["curves"]:
        xs, ys = bowed_curve(c["from"], c["to"])
        ax.plot(xs, ys, color=c["colour"], lw=line_width(c["stroke"]), zorder=1, linestyle=dash_style(c["stroke"]))
    for s in chart["series"]:
        for i, (x, y) in enumerate(s["points"]):
            ax.add_patch(plt.Rectangle((x - 0.38, y - 0.3), 0.76, 0.6, color=s["colour"], zorder=2))
            if i < len(s["notes"]):
                ax.text(x, y, s["notes"][i], ha="center", va="center", fontsize=8, color="white", zorder=3, fontweight="bold")
    ax.set_xlim(-0.7, len(columns) - 0.3)
    ax.set_ylim(len(rows) - 0.4, -0.9)
    ax.xaxis.tick_top()
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels(columns, fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows, fontsize=7)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [matplotlib.lines.Line2D([], [], color="#444", lw=line_width(k), linestyle=dash_style(k), label=k["name"])
               for k in chart["key"]]
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles), fontsize=7, frameon=False,
                  handlelength=3)


def draw_chart(ax, chart):
    """One panel from its description (analysis/report/charts.hpp): the HTML page draws the same."""
    if chart["kind"] in ("bars", "ranges", "cells"):
        {"bars": draw_bars, "ranges": draw_ranges, "cells": draw_cells}[chart["kind"]](ax, chart)
        ax.set_title(chart["title"], fontsize=10 if chart["kind"] == "bars" else 9)
        return
    xs_all, ys_all = [], []
    for s in chart["series"]:
        xs = [p[0] for p in s["points"]]
        ys = [p[1] for p in s["points"]]
        xs_all += xs
        ys_all += ys
        if chart["kind"] == "lines":
            ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.4, color=s["colour"], label=s["name"])
        else:
            ax.scatter(xs, ys, s=14, alpha=0.6, color=s["colour"], label=s["name"], zorder=3)
    if chart["diagonal"] and xs_all:
        lo, hi = min(xs_all + ys_all) / 1.3, max(xs_all + ys_all) * 1.3
        ax.plot([lo, hi], [lo, hi], color="gray", linewidth=0.8, linestyle=(0, (4, 3)))
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
    if chart["x"]["bytes"]:
        size_axis(ax, xs_all)
    else:
        ax.set_xscale("log")
        log_axis(ax.xaxis)
    ax.set_yscale("log")
    log_axis(ax.yaxis)
    ax.set_xlabel(chart["x"]["label"])
    ax.set_ylabel(chart["y"]["label"])
    ax.set_title(chart["title"], fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    draw_dot_notes(ax, chart)


def draw_dot_notes(ax, chart):
    """Each note at its dot's right, top to bottom, each at least a line below the one before:
    dots that nearly coincide (a plan that predicts mappings equal) must not print their notes
    over each other. The page stacks them the same way."""
    notes = [(x, y, n) for s in chart["series"] for (x, y), n in zip(s["points"], s.get("notes", []))]
    if not notes:
        return
    ax.autoscale_view()
    to_points = 72.0 / ax.figure.dpi
    previous = None
    for x, y, note in sorted(notes, key=lambda n: -n[1]):
        at = ax.transData.transform((x, y))[1] * to_points
        label = at + 4 if previous is None else min(at + 4, previous - 10)
        previous = label
        ax.annotate(note, (x, y), fontsize=7, textcoords="offset points", xytext=(6, label - at),
                    arrowprops={"arrowstyle": "-", "color": "gray", "linewidth": 0.5} if label < at - 6 else None)


def panel_size(chart):
    """A panel's width and height in inches, by its kind."""
    if chart["kind"] == "bars":
        return 8, 0.45 * len(chart["y"]["categories"]) + 1.6
    if chart["kind"] == "ranges":
        return 5.2, 3.8
    if chart["kind"] == "cells":
        return max(2.2, 0.75 * len(chart["x"]["categories"]) + 1.2), max(1.4, 0.6 * len(chart["y"]["categories"]) + 1.2)
    return (5.5, 5.0) if chart["diagonal"] else (5.2, 4.2)


def panel_places(figure):
    """Each panel's (row, column), and the number of rows and columns: the figure's rows when it
    names them, else `columns` to a row."""
    n = len(figure["panels"])
    if figure["rows"]:
        places = [(r, c) for r, row in enumerate(figure["rows"]) for c in range(row["panels"])]
        return places, len(figure["rows"]), max(row["panels"] for row in figure["rows"])
    cols = min(figure["columns"] or n, n)
    return [divmod(i, cols) for i in range(n)], math.ceil(n / cols), cols


def draw_figure(figure, out_dir):
    """One described figure, its panels in its rows or `columns` to a row, into its file."""
    panels = figure["panels"]
    places, rows, cols = panel_places(figure)
    w, h = max(panel_size(c)[0] for c in panels), max(panel_size(c)[1] for c in panels)
    fig, axes = plt.subplots(rows, cols, figsize=(w * cols, h * rows), squeeze=False)
    cells = [axes[r][c] for r, c in places]
    for ax, chart in zip(cells, panels):
        draw_chart(ax, chart)
    for ax in [ax for row in axes for ax in row if ax not in cells]:
        ax.axis("off")
    for r, row in enumerate(figure["rows"]):
        axes[r][0].set_ylabel(row["label"], fontsize=9)
    if panels[0]["kind"] == "bars":
        if len(panels[0]["series"]) > 1:
            ax = cells[0]
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    elif panels[0]["kind"] in ("lines", "points"):
        # One legend where every panel has the same series; else one per panel.
        names = [[s["name"] for s in c["series"]] for c in panels]
        for ax, these in zip(cells, names if len({tuple(n) for n in names}) > 1 else names[:1]):
            if these:
                ax.legend(fontsize=7, loc="upper left")
    if figure["title"]:
        fig.suptitle(figure["title"], fontsize=10)
    fig.tight_layout()
    save(fig, out_dir, figure["file_name"])


def read_arguments(usage):
    """(the input JSON, the output folder, created) from `script INPUT.json OUTDIR`, or None
    after printing `usage`. history_plots.py reads its arguments here too."""
    if len(sys.argv) != 3:
        print(f"usage: {usage}", file=sys.stderr)
        return None
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    os.makedirs(sys.argv[2], exist_ok=True)
    return data, sys.argv[2]


def main():
    arguments = read_arguments("plots.py REPORT.json OUTDIR")
    if arguments is None:
        return 2
    report, out_dir = arguments
    for figure in report["charts"]:
        draw_figure(figure, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
