"""`meshbench report --html` in a real browser (Debian's chromium, headless) and the placement
PNG of `report --plot`, on the results file the report setup test writes (4 ranks under mpirun).

Cases: html_browser, html_placement_pixels, html_bad_input, plot_placement."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, expect_bad_input, fail, read_h5, run  # noqa: E402

CHROMIUM = os.environ.get("MESHBENCH_CHROMIUM", "/usr/bin/chromium")
# The first group colours and a placement cell's geometry, as docs/report.md states them
# ("HTML report"): the test holds the writer to its documentation.
GROUP_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                 "#e377c2", "#17becf", "#bcbd22", "#393b79", "#ad494a", "#637939"]
CELL_W, CELL_H, GAP_X, GAP_Y, LEFT, TOP = 48, 34, 16, 30, 104, 40


def fixture(name):
    path = os.path.join(os.environ["REPORT_FIXTURES"], name)
    if not os.path.exists(path):
        fail(f"fixture {path} is missing: the setup test did not run")
    return path


def rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def screenshot(page, png, width, height):
    """Loads `page` in headless chromium and saves a width x height screenshot; returns the
    browser's console lines (INFO:CONSOLE: console calls and uncaught errors)."""
    if not os.access(CHROMIUM, os.X_OK):
        fail(f"{CHROMIUM} is missing: scripts/deps.sh installs Debian's chromium")
    # A private profile: a shared one can be locked by another test's browser.
    profile = os.path.join(os.path.dirname(png), "profile-" + os.path.basename(png))
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
           "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
           f"--user-data-dir={profile}", "--no-first-run", "--disable-extensions",
           f"--screenshot={png}", f"--window-size={width},{height}", "file://" + page]
    # Chromium takes seconds to start on a loaded 2-core machine, and now and then never ends:
    # one CI run's headless chromium sat 240 s on a page it takes 5 s to draw. What is tested is
    # the page, not the browser's start, so a browser that hangs is ended with every process it
    # started (its own session) and started again, three tries at most.
    for attempt in range(1, 4):
        shutil.rmtree(profile, ignore_errors=True)
        if os.path.exists(png):
            os.remove(png)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=90)
            break
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            print(f"chromium did not end within 90 s (try {attempt} of 3); started again", file=sys.stderr)
    else:
        fail("chromium hung three times in a row (90 s each)")
    p = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    check(p.returncode == 0 and os.path.exists(png), "chromium did not take the screenshot", p)
    return [l for l in p.stderr.splitlines() if "CONSOLE" in l]


def image(png):
    from PIL import Image  # noqa: PLC0415 - Debian's python3-pil
    return Image.open(png).convert("RGB")


def write_html(d):
    out = os.path.join(d, "report.html")
    p = run("report", fixture("base.h5"), "--html", out, timeout=300)
    check(p.returncode == 0, "report --html failed", p)
    check(f"wrote {out}" in p.stderr, "report did not say it wrote the page", p)
    with open(out, encoding="utf-8") as f:
        return out, f.read()


def test_html_browser():
    with TempDir() as d:
        page, text = write_html(d)
        # Self-contained: no address outside the page except the SVG namespace.
        outside = [u for u in re.findall(r"(?:https?:)?//[^\s\"'<>)]+", text) if u != "http://www.w3.org/2000/svg"]
        check(not [u for u in outside if u.startswith("http") or u.startswith("//")], f"the page names addresses: {outside[:5]}")
        for section in ["ranking", "apply", "placement", "links", "busbw", "predictions", "spread"]:
            check(f'<section id="{section}"' in text, f"no {section} section")
        png = os.path.join(d, "page.png")
        console = screenshot(page, png, 1280, 2400)
        check(not console, "the page wrote to the browser console:\n" + "\n".join(console))
        im = image(png)
        colours = im.getcolors(maxcolors=1 << 20)
        check(colours is not None and len(colours) >= 64, f"screenshot has {0 if colours is None else len(colours)} colours: blank?")
        white = max(c for c, _ in colours) / (im.size[0] * im.size[1])
        check(white < 0.97, f"screenshot is {white:.1%} one colour")
        # Every group colour of the best mapping's tp picture is on screen.
        have = {c for _, c in colours}
        for hex_colour in GROUP_COLOURS[:2]:
            check(rgb(hex_colour) in have, f"group colour {hex_colour} not on screen")


def placement_expectation(mapping_name):
    """slot -> expected colour of the tp picture, from the results file's groups and placement."""
    with read_h5(fixture("base.h5")) as f:
        names = [r["name"].decode() for r in f["mappings/table"][:]]
        i = names.index(mapping_name)
        slot_of_rank = f[f"mappings/M{i}/slot_of_rank"][:].tolist()
        tp = f[f"mappings/M{i}/groups/tp"][:].tolist()
    return {slot_of_rank[r]: GROUP_COLOURS[g] for g, ranks in enumerate(tp) for r in ranks}


def test_html_placement_pixels():
    with TempDir() as d:
        _, text = write_html(d)
        j = run("report", fixture("base.h5"), "--format", "json")
        check(j.returncode == 0, "report --format json failed", j)
        report = json.loads(j.stdout)
        nodes = report["placement"]["nodes"]
        for k, m in enumerate(report["placement"]["mappings"][:3]):
            expected = placement_expectation(m["mapping"])
            svg = re.search(rf'<svg id="placement-{k}-tp".*?</svg>', text, re.S)
            check(svg is not None, f"no tp picture for mapping {k}")
            w, h = (float(x) for x in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg.group(0)).groups())
            page = os.path.join(d, f"placement-{k}.html")
            with open(page, "w", encoding="utf-8") as f:
                f.write('<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                        '<body style="margin:0;background:#fff">' + svg.group(0) + "</body></html>")
            png = os.path.join(d, f"placement-{k}.png")
            console = screenshot(page, png, int(w) + 40, int(h) + 40)
            check(not console, "console output:\n" + "\n".join(console))
            im = image(png)
            for row, node in enumerate(nodes):
                for local in range(node["slots"]):
                    slot = node["first_slot"] + local
                    x = LEFT + local * (CELL_W + GAP_X)
                    y = TOP + row * (CELL_H + GAP_Y)
                    check(f'id="placement-{k}-tp-s{slot}" x="{x:.1f}" y="{y:.1f}"' in svg.group(0),
                          f"cell of slot {slot} not where docs/report.md puts it")
                    want = rgb(expected.get(slot, "#e6e6e6"))
                    got = im.getpixel((x + 8, y + 6))
                    check(all(abs(a - b) <= 3 for a, b in zip(got, want)),
                          f"mapping {m['mapping']} tp slot {slot}: pixel {got}, expected {want}")


def test_html_bad_input():
    with TempDir() as d:
        missing = os.path.join(d, "no", "such", "dir", "r.html")
        p = run("report", fixture("base.h5"), "--html", missing)
        expect_bad_input(p, "--html")
        check(p.stdout == "", "a report was printed although the page could not be written", p)
        check(not os.path.exists(os.path.dirname(missing)), "a folder was created for the page")
        bad = os.path.join(d, "bad.h5")
        with open(bad, "w") as f:
            f.write("not a results file\n")
        out = os.path.join(d, "r.html")
        p = run("report", bad, "--html", out)
        expect_bad_input(p, "bad.h5")
        check(sorted(os.listdir(d)) == ["bad.h5"], f"files left behind: {os.listdir(d)}")


def test_plot_placement():
    with TempDir() as d:
        out = os.path.join(d, "plots")
        p = run("report", fixture("base.h5"), "--plot", out, timeout=300)
        check(p.returncode == 0, "report --plot failed", p)
        png = os.path.join(out, "placement.png")
        check(os.path.exists(png), f"no placement.png among {sorted(os.listdir(out))}")
        im = image(png)
        have = {c for _, c in im.getcolors(maxcolors=1 << 22)}
        for hex_colour in GROUP_COLOURS[:2]:
            check(rgb(hex_colour) in have, f"placement.png lacks group colour {hex_colour}")


CASES = {name[len("test_"):]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    print("PASS", sys.argv[1])
