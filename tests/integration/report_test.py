"""Integration tests of `meshbench report` and `meshbench compare` on files written by
`meshbench run` under mpirun with 4 ranks on this machine.

`setup DIR` writes the fixtures (two honest runs of one configuration); every other case reads
them from DIR."""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, expect_bad_input, fail, mpirun, read_h5, run  # noqa: E402
from report_h5edit import plant_op_size_slowdown, plant_slowdown, set_schema_version, shift_sizes  # noqa: E402

# TP2 x DP2 with EP2 x EDP2 (ETP 1) on 4 ranks; the in-process plan measures every valid order.
RUN = ["run", "--tp", "2", "--ep", "2", "--etp", "1", "-b", "1K", "-e", "256K", "-f", "4", "--budget", "0.1",
       "--min-iters", "50", "--batches", "3"]
WORKLOAD = {"name": "tiny-moe", "layers": 2, "hidden": 256, "ffn_hidden": 512, "kv_hidden": 64, "seq_len": 256,
            "micro_batch": 1, "micro_batches": 2, "experts": 4, "top_k": 2, "vocab": 1000}


def fixture(name):
    path = os.path.join(os.environ["REPORT_FIXTURES"], name)
    if not os.path.exists(path):
        fail(f"fixture {path} is missing: the setup test did not run")
    return path


def case_setup(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for name in ("base.h5", "rerun.h5"):
        p = mpirun(4, *RUN, "--out", os.path.join(out_dir, name), "--force", timeout=900)
        check(p.returncode == 0, f"run for {name} failed", p)


def test_report_text():
    p = run("report", fixture("base.h5"))
    check(p.returncode == 0, "report failed", p)
    with read_h5(fixture("base.h5")) as f:
        names = [r["name"].decode() for r in f["mappings/table"][:]]
    for needle in ["ML view", "Infrastructure view", "busbw GB/s", "spread across groups", "apply the best mapping", "Megatron-LM:"]:
        check(needle in p.stdout, f"report lacks '{needle}'", p)
    for n in names:
        check(n in p.stdout, f"mapping {n} missing from the report", p)
    check(p.stderr == "", "report wrote to stderr", p)


def test_report_formats():
    j = run("report", fixture("base.h5"), "--format", "json")
    check(j.returncode == 0, "report --format json failed", j)
    data = json.loads(j.stdout)
    ranks = [m["rank"] for m in data["ranking"]["mappings"]]
    check(ranks == list(range(1, len(ranks) + 1)) and len(ranks) >= 3, f"ranks {ranks}")
    scores = [m["score"] for m in data["ranking"]["mappings"]]
    # Each point's fastest mapping scores 1 there; the geometric mean is 1 only for a mapping
    # fastest everywhere.
    check(scores == sorted(scores) and scores[0] >= 1.0 and data["ranking"]["mappings"][0]["vs_best"] == 1.0,
          f"default scores not ascending from >= 1: {scores}")
    check(data["group_spread"] and all(s["slowest_hosts"] for s in data["group_spread"]), "group spread without hosts")
    c = run("report", fixture("base.h5"), "--format", "csv")
    check(c.returncode == 0, "report --format csv failed", c)
    code = ("import pandas as pd, sys, io\n"
            "df = pd.read_csv(io.StringIO(sys.stdin.read()))\n"
            "assert list(df.columns) == ['section','rank','mapping','dim','op','timing','concurrency','bytes','metric','value','detail'], df.columns\n"
            "assert set(df.section) >= {'ranking','curve','spread'}, set(df.section)\n"
            "print(len(df))\n")
    q = subprocess.run(["/usr/bin/python3", "-c", code], input=c.stdout, capture_output=True, text=True)
    check(q.returncode == 0, "pandas could not read the CSV", q)
    m = run("report", fixture("base.h5"), "--format", "markdown")
    check(m.returncode == 0 and "## ML view" in m.stdout and "| ---: |" in m.stdout, "markdown lacks headings or tables", m)


def test_report_workload():
    with TempDir() as d:
        wl = os.path.join(d, "w.json")
        with open(wl, "w") as f:
            json.dump(WORKLOAD, f)
        p = run("report", fixture("base.h5"), "--workload", wl, "--format", "json")
        check(p.returncode == 0, "report --workload failed", p)
        data = json.loads(p.stdout)
        k = data["ranking"]
        check(k["basis"] == "workload" and k["workload"]["name"] == "tiny-moe", "not ranked by the workload")
        check(set(k["dims"]) == {"tp", "dp", "ep", "edp"}, f"dims {k['dims']}")
        for m in k["mappings"]:
            check(m["complete"], f"{m['name']} incomplete: {m}")
            total = sum(m["dims"][d] for d in k["dims"])
            check(abs(total - m["score"]) <= 1e-6 * m["score"], f"{m['name']}: dims {total} != step {m['score']}")
            edp = [o for o in m["ops"] if o["dim"] == "edp"]
            check(edp and edp[0]["source_dim"] in ("dp", "tp", "ep"), f"edp not borrowed: {edp}")
        t = run("report", fixture("base.h5"), "--workload", wl)
        check("estimated communication time per training step" in t.stdout and "where the best mapping's step time goes" in t.stdout,
              "text report lacks the step-time view", t)
        bad = os.path.join(d, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        expect_bad_input(run("report", fixture("base.h5"), "--workload", bad), "workload")


def png_facts(path):
    """(width, height) from the IHDR chunk, after checking the signature."""
    with open(path, "rb") as f:
        head = f.read(33)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    check(head[12:16] == b"IHDR", f"{path} has no IHDR first")
    return struct.unpack(">II", head[16:24])


def test_report_plots():
    with TempDir() as d:
        out = os.path.join(d, "plots")
        p = run("report", fixture("base.h5"), "--plot", out, timeout=300)
        check(p.returncode == 0, "report --plot failed", p)
        files = sorted(os.listdir(out))
        expected = {"ranking.png", "group_spread.png", "busbw_tp.png", "busbw_dp.png", "busbw_ep.png"}
        check(expected <= set(files), f"plots written: {files}")
        code = ("import sys, matplotlib.image as im, numpy as np\n"
                "for p in sys.argv[1:]:\n"
                "    a = im.imread(p)[..., :3]\n"
                "    ink = (a.min(axis=2) < 0.9).mean()\n"
                "    colour = (a.max(axis=2) - a.min(axis=2) > 0.2).mean()\n"
                "    print(p, a.std(), ink, colour)\n"
                "    assert a.std() > 0.05 and ink > 0.01, (p, a.std(), ink)\n"
                "    assert colour > 0.001, (p, 'no coloured pixels: no data drawn', colour)\n")
        paths = [os.path.join(out, f) for f in files]
        for path in paths:
            w, h = png_facts(path)
            check(w >= 300 and h >= 200, f"{path} is {w}x{h}")
        q = subprocess.run(["/usr/bin/python3", "-c", code, *paths], capture_output=True, text=True)
        check(q.returncode == 0, "a plot is blank", q)


def test_report_plot_without_matplotlib():
    with TempDir() as d:
        stub = os.path.join(d, "stub", "matplotlib")
        os.makedirs(stub)
        with open(os.path.join(stub, "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named matplotlib (test stub)')\n")
        fake = os.path.join(d, "python3")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\nPYTHONPATH={os.path.dirname(stub)} exec /usr/bin/python3 \"$@\"\n")
        os.chmod(fake, 0o755)
        for python, needle in ((fake, "matplotlib"), (os.path.join(d, "absent-python"), "python3")):
            proc = subprocess.run([os.environ["MESHBENCH"], "report", fixture("base.h5"), "--plot", os.path.join(d, "p")],
                                  env=dict(os.environ, MESHBENCH_PYTHON=python), capture_output=True, text=True, timeout=120)
            expect_bad_input(proc, needle)


def test_report_export():
    with TempDir() as d:
        p = run("report", fixture("base.h5"), "--export", d)
        check(p.returncode == 0, "report --export failed", p)
        for name in ("rankfile", "slurm_hostfile", "megatron_args.txt"):  # CPU slots: no CUDA_VISIBLE_DEVICES files
            check(os.path.exists(os.path.join(d, name)), f"{name} not written")
        with open(os.path.join(d, "rankfile")) as f:
            lines = f.read().splitlines()
        check(len(lines) == 4 and all(l.startswith(f"rank {i}=") for i, l in enumerate(lines)), f"rankfile: {lines}")
        again = run("report", fixture("base.h5"), "--export", d)
        expect_bad_input(again, "exists")
        check(run("report", fixture("base.h5"), "--export", d, "--force").returncode == 0, "--force did not overwrite")


def compare(*args):
    return run("compare", *args, timeout=300)


def test_compare_planted_slowdown():
    """A 10% slowdown of one op at one size (all_reduce at the largest size, in every dimension,
    mapping and timing mode) in a copy of a real run: that op and size is flagged, nothing else."""
    with TempDir() as d:
        base = fixture("base.h5")
        with read_h5(base) as f:
            largest = int(max(f["measurements"][:]["bytes"]))
        planted = os.path.join(d, "planted.h5")
        keys = plant_op_size_slowdown(base, planted, 1.10, "all_reduce", largest)
        check(len(keys) >= 8, f"planted in {len(keys)} points only")
        p = compare(base, planted, "--format", "json")
        check(p.returncode == 1, f"a planted 10% slowdown must exit 1, got {p.returncode}", p)
        data = json.loads(p.stdout)
        families = [f for f in data["families"] if f["verdict"] != "unchanged"]
        check(any(f["op"] == "all_reduce" and f["bytes"] == largest and f["verdict"] == "regression" for f in families),
              f"the planted op and size is not flagged: {families}")
        check(all(f["op"] == "all_reduce" and f["verdict"] == "regression" for f in families), f"other families flagged: {families}")
        planted_keys = {(k["mapping"], k["dim"], k["op"], k["timing"], k["bytes"]) for k in keys}
        rows = [r for r in data["rows"] if r["verdict"] != "unchanged"]
        check(all((r["base_mapping"], r["dim"], r["op"], r["timing"], r["bytes"]) in planted_keys and r["verdict"] == "regression"
                  for r in rows), f"points outside the plant flagged: {rows}")
        check(all(s["verdict"] == "unchanged" for s in data["scatter"]), f"a whole-run shift flagged: {data['scatter']}")
        t = compare(base, planted)
        check(t.returncode == 1 and "verdict: REGRESSION" in t.stdout and "all_reduce at" in t.stdout.splitlines()[3],
              "the text summary does not name the planted op and size", t)
        m = compare(base, planted, "--format", "markdown")
        check(m.returncode == 1 and "SLOWER" in m.stdout, "markdown output lacks the regression", m)
        # One point alone, where its samples can show a 10% change, is found too.
        single = os.path.join(d, "single.h5")
        key = plant_slowdown(base, single, 1.10)
        q = compare(base, single, "--format", "json")
        flagged = [r for r in json.loads(q.stdout)["rows"] if r["verdict"] != "unchanged"]
        check(q.returncode == 1 and len(flagged) == 1 and flagged[0]["base_mapping"] == key["mapping"] and flagged[0]["bytes"] == key["bytes"],
              f"the single planted point {key} is not the one flagged: {flagged}", q)


def test_compare_same_file():
    p = compare(fixture("base.h5"), fixture("base.h5"), "--format", "json")
    check(p.returncode == 0, "a file against itself must exit 0", p)
    data = json.loads(p.stdout)
    check(data["counts"]["regression"] == 0 and data["counts"]["improvement"] == 0, f"counts {data['counts']}")
    check(not data["changes"], f"provenance changes against itself: {data['changes']}")


def test_compare_honest_rerun():
    p = compare(fixture("base.h5"), fixture("rerun.h5"))
    check(p.returncode == 0, "two honest runs of one configuration flagged a regression", p)
    check("verdict: no regression" in p.stdout, "no verdict line", p)


def test_compare_bad_input():
    with TempDir() as d:
        base = fixture("base.h5")
        expect_bad_input(compare(base, os.path.join(d, "absent.h5")), "absent.h5")
        text = os.path.join(d, "text.h5")
        with open(text, "w") as f:
            f.write("not hdf5\n")
        expect_bad_input(compare(base, text), "hdf5")
        foreign = os.path.join(d, "foreign.h5")
        import h5py  # noqa: PLC0415
        with h5py.File(foreign, "w") as f:
            f["x"] = [1, 2, 3]
        expect_bad_input(compare(foreign, base), "meshbench")
        future = os.path.join(d, "future.h5")
        set_schema_version(base, future, 99)
        expect_bad_input(compare(base, future), "schema version")
        disjoint = os.path.join(d, "disjoint.h5")
        shift_sizes(base, disjoint)
        expect_bad_input(compare(base, disjoint), "no measured point in common")
        expect_bad_input(compare(base), "two results files")
        expect_bad_input(compare(base, base, "--format", "csv"), "format")
        expect_bad_input(run("report", os.path.join(d, "absent.h5")), "absent.h5")
        expect_bad_input(run("report", text), "hdf5")
        expect_bad_input(run("report", future), "schema version")


CASES = {name[len("test_"):]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    if sys.argv[1] == "setup":
        case_setup(sys.argv[2])
    else:
        CASES[sys.argv[1]]()
    print("PASS", sys.argv[1])
