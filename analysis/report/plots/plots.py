"""meshbench report --plot: PNG plots from the report's JSON (docs/report.md).

Embedded in the meshbench binary at build time and run with Debian's python3 and
python3-matplotlib: `python3 plots.py REPORT.json OUTDIR`. Prints each file it writes, one per
line. Exit status 3 when matplotlib is missing, so meshbench can say what to install.
The JSON carries "op_order", the ops in meshbench's table order, so that no op is named here, and
"charts": the figures the HTML page draws too (busbw_<dim>.png, predicted_vs_measured.png), each
described once in C++ (analysis/report/charts.hpp); draw_figure only draws a description.
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

DIM_ORDER = ["tp", "cp", "dp", "pp", "ep", "etp", "edp"]


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


def ranked_names(report):
    return {m["name"]: m["rank"] for m in report["ranking"]["mappings"]}


def draw_chart(ax, chart):
    """One panel from its description (analysis/report/charts.hpp): the HTML page draws the same."""
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


def draw_figure(figure, out_dir):
    """One described figure, its panels side by side, into its file."""
    panels = figure["panels"]
    square = all(c["diagonal"] for c in panels)
    w, h = (5.5, 5.0) if square else (5.2, 4.2)
    fig, axes = plt.subplots(1, len(panels), figsize=(w * len(panels), h), squeeze=False)
    for ax, chart in zip(axes[0], panels):
        draw_chart(ax, chart)
    # One legend where every panel has the same series; else one per panel.
    names = [[s["name"] for s in c["series"]] for c in panels]
    for ax, these in zip(axes[0], names if len({tuple(n) for n in names}) > 1 else names[:1]):
        if these:
            ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(figure["title"], fontsize=10)
    fig.tight_layout()
    save(fig, out_dir, figure["file_name"])


def time_unit(scale_us):
    if scale_us >= 1e6:
        return "s", 1e6
    if scale_us >= 1e3:
        return "ms", 1e3
    return "us", 1.0


def plot_ranking(report, out_dir):
    k = report["ranking"]
    maps = [m for m in k["mappings"]]
    if not maps:
        return
    names = [f"#{m['rank']} {m['name']}" for m in maps][::-1]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(maps) + 1.6))
    if k["basis"] == "workload":
        unit, div = time_unit(max(m["score"] for m in maps))
        left = [0.0] * len(maps)
        for dim in k["dims"]:
            vals = [((m["dims"].get(dim) or 0.0) / div) for m in maps][::-1]
            ax.barh(names, vals, left=left, label=dim)
            left = [a + b for a, b in zip(left, vals)]
        for y, total in enumerate(left):
            ax.text(total, y, f" {total:.3g}", va="center", fontsize=8)
        ax.set_xlabel(f"estimated communication per step ({unit}), stacked by dimension")
        ax.set_xlim(0, max(left) * 1.12)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="dimension", title_fontsize=8)
        title = f"ranking for workload '{k['workload']['name'] or 'unnamed'}'"
    else:
        vals = [m["score"] for m in maps][::-1]
        ax.barh(names, vals, color="tab:blue")
        ax.axvline(1.0, color="black", linewidth=0.8)
        for y, v in enumerate(vals):
            ax.text(v, y, f" {v:.3f}", va="center", fontsize=8)
        ax.set_xlim(left=min(0.9, min(vals) * 0.95), right=max(vals) * 1.08)
        ax.set_xlabel("geometric mean of time / fastest mapping's time (1 = fastest everywhere)")
        title = "ranking without a workload"
    ax.set_title(title + f" ({k['timing']} concurrent medians)", fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, out_dir, "ranking.png")


def plot_spread(report, out_dir):
    ranks = ranked_names(report)
    timing = report["ranking"]["timing"]
    op_order = report["op_order"]
    rows = [s for s in report["group_spread_largest"] if s["timing"] == timing and s["concurrency"] == "concurrent"]
    keys = sorted({(s["dim"], s["op"]) for s in rows}, key=lambda k: (DIM_ORDER.index(k[0]) if k[0] in DIM_ORDER else 99, op_order.index(k[1]) if k[1] in op_order else 99))
    if not keys:
        return
    cols = min(3, len(keys))
    nrows = math.ceil(len(keys) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.8 * nrows), squeeze=False)
    for i, (dim, op) in enumerate(keys):
        ax = axes[i // cols][i % cols]
        these = sorted((s for s in rows if s["dim"] == dim and s["op"] == op), key=lambda s: ranks.get(s["mapping"], 1e9))
        for x, s in enumerate(these):
            ys = [v for v in s["group_us"] if v > 0]
            ax.vlines(x, s["min_us"], s["max_us"], color="gray", linewidth=1)
            ax.scatter([x] * len(ys), ys, s=14, color="tab:blue", zorder=3)
            ax.scatter([x], [s["max_us"]], s=30, color="tab:red", zorder=4)
            hosts = ",".join(s["slowest_hosts"][:2]) + ("…" if len(s["slowest_hosts"]) > 2 else "")
            # Neighbours' labels alternate above and below their dot so that long host names do not collide.
            ax.annotate(f"g{s['slowest_group']} {hosts}", (x, s["max_us"]), textcoords="offset points",
                        xytext=(4, 3 if x % 2 == 0 else -10), fontsize=6.5)
        ax.set_xticks(range(len(these)))
        ax.set_xticklabels([f"#{ranks.get(s['mapping'], '?')}" for s in these])
        size = size_label(these[0]["bytes"]) if these else ""
        ax.set_title(f"{dim} {op} at {size}", fontsize=9)
        ax.set_ylabel("group median (us)")
        ax.set_ylim(bottom=0, top=max(s["max_us"] for s in these) * 1.12)
        ax.set_xlim(-0.5, len(these) - 0.5 + 0.6)
        ax.grid(True, axis="y", alpha=0.3)
    for j in range(len(keys), nrows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.suptitle("spread across groups at the largest size: each dot a group's median, red the slowest (its hosts beside it)", fontsize=10)
    fig.tight_layout()
    save(fig, out_dir, "group_spread.png")


def plot_plan_predictions(report, out_dir):
    """Without an accuracy chart: the plan's step predictions against the ranking (PNG only)."""
    pred = report.get("predictions")
    if not pred:
        return
    rows = [r for r in pred["rows"] if r["dim"] == "step" and r["measured"]]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(6, 5))
    xs = [r["predicted_us"] for r in rows]
    ys = [r["measured"] for r in rows]
    ax.scatter(xs, ys, s=60, color="tab:blue", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("predicted by the plan (us)")
    if pred["like_for_like"]:
        lo, hi = min(xs + ys), max(xs + ys)
        ax.plot([lo, hi], [lo, hi], color="gray", linewidth=0.8, label="measured = predicted")
        ax.legend(fontsize=8)
        ax.set_ylabel("measured per step (us)")
    else:
        ax.set_ylabel(f"measured ({report['ranking']['unit']}): only the order compares")
    # Labels top to bottom, each at least a line below the one before: points that nearly
    # coincide (a plan that predicts mappings equal) must not print their names over each other.
    ax.autoscale_view()
    to_points = 72.0 / fig.dpi
    previous = None
    for r in sorted(rows, key=lambda r: -r["measured"]):
        x, y = r["predicted_us"], r["measured"]
        at = ax.transData.transform((x, y))[1] * to_points
        label = at + 4 if previous is None else min(at + 4, previous - 10)
        previous = label
        ax.annotate(f"#{r['measured_rank']:g} {r['mapping']}", (x, y), fontsize=7, textcoords="offset points", xytext=(6, label - at),
                    arrowprops={"arrowstyle": "-", "color": "gray", "linewidth": 0.5} if label < at - 6 else None)
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        # Plain numbers; minor ticks get labels only when the axis spans less than a decade.
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(plain if 1 < hi / lo < 10 else NullFormatter())
    rho = pred["rank_correlation"]
    rho_text = f"Spearman {rho:.2f}" if rho is not None else "the plan predicts every mapping equal"
    ax.set_title(f"plan against measurement: {rho_text} ({pred['compared_mappings']} mappings)", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    save(fig, out_dir, "predicted_vs_measured.png")


PLACEMENT_MAPPINGS = 4  # the best few: a page of pictures, not a poster


def dash_style(dash):
    """An SVG stroke-dasharray ("12 4 2 4", "" for solid) as a matplotlib linestyle."""
    parts = [float(p) for p in dash.split()]
    return (0, tuple(p / 2.5 for p in parts)) if parts else "solid"  # matplotlib scales dashes by the line width


def hop_curve(a, b, steps=24):
    """A quadratic curve between two cell centres, bowed as the HTML page bows it: up into the
    gap above the row inside a node, to the side between nodes (y grows downwards)."""
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


def placement_panel(ax, grid, dim, styles):
    """One dimension's nodes x slots: cells in their group's colour, ring hops beneath them."""
    widest = max(n["slots"] for n in grid["nodes"])
    cell = {}
    for row, node in enumerate(grid["nodes"]):
        for k in range(node["slots"]):
            cell[node["first_slot"] + k] = (k, row)
    for g in dim["groups"]:
        for hop in g["hops"]:
            xs, ys = hop_curve(cell[hop["from_slot"]], cell[hop["to_slot"]])
            ax.plot(xs, ys, color=g["colour"], lw=2.2, zorder=1, linestyle=dash_style(styles.get(hop["link"], "")))
    for slot, (x, y) in cell.items():
        group = dim["group_of_slot"][slot]
        colour = dim["groups"][group]["colour"] if group >= 0 else "#e6e6e6"
        ax.add_patch(plt.Rectangle((x - 0.38, y - 0.3), 0.76, 0.6, color=colour, zorder=2))
        if group >= 0:
            ax.text(x, y, f"r{dim['rank_of_slot'][slot]}", ha="center", va="center", fontsize=8, color="white", zorder=3,
                    fontweight="bold")
    ax.set_xlim(-0.7, widest - 0.3)
    ax.set_ylim(len(grid["nodes"]) - 0.4, -0.9)
    ax.set_xticks(range(widest))
    ax.set_xticklabels([f"slot {k}" for k in range(widest)], fontsize=7)
    ax.set_yticks(range(len(grid["nodes"])))
    ax.set_yticklabels([n["host"] for n in grid["nodes"]], fontsize=7)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(f"{dim['dim']}: {len(dim['groups'])} groups of {len(dim['groups'][0]['ranks'])}", fontsize=9)


def plot_placement(report, out_dir):
    """placement.png: where the best mappings' groups land, one row per mapping, one panel per dimension."""
    grid = report.get("placement")
    if not grid or not grid["mappings"]:
        return
    mappings = [m for m in grid["mappings"] if m["dims"]][:PLACEMENT_MAPPINGS]
    if not mappings:
        return
    styles = {c["name"]: c["dash"] for c in grid["link_classes"]}
    cols = max(len(m["dims"]) for m in mappings)
    widest = max(n["slots"] for n in grid["nodes"])
    w, h = max(2.2, 0.75 * widest + 1.2), max(1.4, 0.6 * len(grid["nodes"]) + 0.9)
    fig, axes = plt.subplots(len(mappings), cols, figsize=(w * cols, h * len(mappings) + 0.6), squeeze=False)
    for row, m in enumerate(mappings):
        for col in range(cols):
            ax = axes[row][col]
            if col >= len(m["dims"]):
                ax.axis("off")
                continue
            placement_panel(ax, grid, m["dims"][col], styles)
            if col == 0:
                name = f"#{m['rank']} {m['mapping']}" if m["rank"] else m["mapping"]
                ax.set_ylabel(name, fontsize=9)
    handles = [matplotlib.lines.Line2D([], [], color="#444", lw=2.2, linestyle=dash_style(c["dash"]), label=c["name"])
               for c in grid["link_classes"]]
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=8, title="link crossed", title_fontsize=8)
    fig.tight_layout(rect=(0, 0.08 if handles else 0, 1, 1))
    save(fig, out_dir, "placement.png")


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
    plot_ranking(report, out_dir)
    plot_spread(report, out_dir)
    if not any(f["file_name"] == "predicted_vs_measured.png" for f in report["charts"]):
        plot_plan_predictions(report, out_dir)
    plot_placement(report, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
