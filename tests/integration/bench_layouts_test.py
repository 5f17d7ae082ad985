"""`meshbench run --plan` with a plan file of several layouts (docs/run.md, "Several layouts"):
one launch of 8 CPU ranks measures EP2 and EP4 into one results file, and `report` ranks the two
layouts with the explorer's estimate kept beside them."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, expect_bad_input, mpirun, read_h5, run

RANKS = 8
QUICK = ["--sizes", "workload", "--timing", "per_iteration", "--budget", "0.05", "--min-iters", "5", "--max-iters", "50",
         "--machine-state", "off", "--no-nic-counters"]
TOP = ["--top", "1"]
ESTIMATE = {"step_time_ms": 12.5, "memory_gib": {"peak": 3.25}}


def plan(d, workload, ep, slots=RANKS):
    out = os.path.join(d, f"ep{ep}-{slots}.json")
    p = run("plan", "--cpu-slots", str(slots), "--ep", str(ep), "--workload", workload, "--out", out)
    check(p.returncode == 0, f"plan --ep {ep} failed", p)
    with open(out) as f:
        return json.load(f)


def plan_file(d, name, layouts):
    """A plan file of several layouts as `explore --out` writes it (mapping/plan_set.hpp)."""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump({"format": "meshbench-plan", "version": 2, "created_by": "bench_layouts_test",
                   "layouts": [{"name": n, "estimate": e, "plan": p} for n, e, p in layouts]}, f)
    return path


def workload_file(d):
    # tiny-moe with 4 experts, so that EP4 divides them.
    with open(os.path.join(os.environ["MESHBENCH_SOURCE_DIR"], "docs", "examples", "tiny-moe-workload.json")) as f:
        w = json.load(f)
    w["experts"] = 4
    path = os.path.join(d, "workload.json")
    with open(path, "w") as f:
        json.dump(w, f)
    return path


def test_two_layouts_in_one_launch():
    with TempDir() as d:
        workload = workload_file(d)
        layouts = plan_file(d, "layouts.json", [("ep2", ESTIMATE, plan(d, workload, 2)), ("ep4", None, plan(d, workload, 4))])
        out = os.path.join(d, "run.h5")
        p = mpirun(RANKS, "run", "--plan", layouts, *QUICK, *TOP, "--out", out)
        check(p.returncode == 0, "run --plan with two layouts failed", p)
        with read_h5(out) as f:
            check(int(f.attrs["schema_version"]) == 2, "a file of several layouts is schema version 2")
            check("layout" not in f and sorted(f["layouts"].keys()) == ["L0", "L1"], "expected /layouts/L0, L1 and no /layout")
            names = [f["layouts"][k].attrs["name"] for k in ("L0", "L1")]
            names = [n.decode() if isinstance(n, bytes) else n for n in names]
            check(names == ["ep2", "ep4"], f"layout names {names}")
            check(json.loads(f["layouts/L0"].attrs["estimate_json"]) == ESTIMATE, "the estimate was not kept")
            mappings = [m.decode() for m in f["mappings/table"]["name"]]
            check(len(mappings) == 2 and mappings[0].startswith("ep2/") and mappings[1].startswith("ep4/"), f"mappings {mappings}")
            layout_of = {f["mappings"][g].attrs["name"]: f["mappings"][g].attrs["layout"] for g in ("M0", "M1")}
            check(sorted(str(v if isinstance(v, str) else v.decode()) for v in layout_of.values()) == ["ep2", "ep4"],
                  f"each mapping names its layout: {layout_of}")
            m = f["measurements"][:]
            measured = {(r["mapping"].decode(), r["dim"].decode()) for r in m}
            for name in mappings:
                dims = {dim for mapping, dim in measured if mapping == name}
                check({"dp", "ep", "edp"} <= dims, f"{name} measured {dims}")
            check((m["wrong"] == 0).all(), "wrong elements in an honest run")
        r = run("report", out, "--format", "json")
        check(r.returncode == 0, "report failed", r)
        j = json.loads(r.stdout)
        rows = j["layouts"]["rows"]
        check(sorted(x["layout"] for x in rows) == ["ep2", "ep4"], f"report's layouts {rows}")
        check(sorted(x["rank"] for x in rows) == [1, 2], f"two ranked layouts {rows}")
        check(all(x["comm_us_per_step"] > 0 and x["best_mapping"].startswith(x["layout"] + "/") for x in rows), f"{rows}")
        check(next(x for x in rows if x["layout"] == "ep2")["estimate"] == ESTIMATE, "the report lost the estimate")
        t = run("report", out)
        check(t.returncode == 0 and "== Layouts" in t.stdout and "step_time_ms 12.5" in t.stdout, "no Layouts section in text", t)
        c = run("report", out, "--format", "csv")
        check(c.returncode == 0 and sum(1 for l in c.stdout.splitlines() if l.startswith("layouts,") and ",step_us," in l) == 2,
              "no two layouts rows in the CSV", c)
        # --mappings may keep one layout's mapping: still priced with that layout's step.
        one = os.path.join(d, "one.h5")
        p = mpirun(RANKS, "run", "--plan", layouts, *QUICK, "--mappings", mappings[1], "--out", one)
        check(p.returncode == 0, f"run --mappings {mappings[1]} failed", p)
        r = run("report", one, "--format", "json")
        check(r.returncode == 0, "report of one layout's mapping failed", r)
        ranked = json.loads(r.stdout)["ranking"]["mappings"]
        check(len(ranked) == 1 and ranked[0]["name"] == mappings[1] and ranked[0]["score"] > 0, f"ranking {ranked}")


def test_explore_hand_off():
    """explore --out writes the plan: EP2 and EP4 measured in one launch, report ranks them with
    the explorer's estimate and draws each layout's memory in the HTML page. The routing skew
    explore priced travels in the plan to what run draws and keeps."""
    with TempDir() as d:
        workload = workload_file(d)
        layouts = os.path.join(d, "explore.json")
        p = run("explore", "--workload", workload, "--cpu-slots", str(RANKS), "--gpu-memory", "4", "--allowance", "0.1",
                "--peak-tflops", "0.05", "--ep", "2,4", "--tp", "1", "--pp", "1", "--cp", "1", "--etp", "1", "--a2av-skew", "0.5",
                "--out", layouts)
        check(p.returncode == 0 and "plan of the best layouts written" in p.stdout, "explore --out failed", p)
        with open(layouts) as f:
            written = json.load(f)
        check(written["version"] == 2 and sorted(l["name"] for l in written["layouts"]) == ["ep2", "ep4"],
              f"explore wrote {[l['name'] for l in written['layouts']]}")
        check(all(l["plan"]["cost_model"]["a2av_skew"] == 0.5 for l in written["layouts"]), "the plan lost explore's routing skew")
        estimates = {l["name"]: l["estimate"] for l in written["layouts"]}
        check(all(e["memory_max_gib"] > 0 and e["memory_limit_gib"] == 4 and e["explore_rank"] >= 1 for e in estimates.values()),
              f"estimates {estimates}")
        out = os.path.join(d, "run.h5")
        p = mpirun(RANKS, "run", "--plan", layouts, *QUICK, *TOP, "--out", out)
        check(p.returncode == 0, "run --plan of explore's file failed", p)
        with read_h5(out) as f:
            kept = json.loads(f["plan_json"][0])
        check(all(l["plan"]["cost_model"]["a2av_skew"] == 0.5 for l in kept["layouts"]), "the results file lost the plan's routing skew")
        r = run("report", out, "--format", "json")
        check(r.returncode == 0, "report failed", r)
        rows = json.loads(r.stdout)["layouts"]["rows"]
        check(sorted(x["layout"] for x in rows) == ["ep2", "ep4"] and all(x["comm_us_per_step"] > 0 for x in rows), f"{rows}")
        check(all(x["estimate"] == estimates[x["layout"]] for x in rows), "the report lost explore's estimate")
        html = os.path.join(d, "report.html")
        h = run("report", out, "--html", html)
        check(h.returncode == 0, "report --html failed", h)
        with open(html) as f:
            page = f.read()
        check(page.count('class="membar"') == 2, "the HTML page lacks a memory bar per layout")


def test_bad_input():
    with TempDir() as d:
        workload = workload_file(d)
        out = os.path.join(d, "x.h5")
        ep2, ep4 = plan(d, workload, 2), plan(d, workload, 4)
        mixed = plan_file(d, "mixed.json", [("ep2", None, ep2), ("ep4", None, plan(d, workload, 4, slots=4))])
        expect_bad_input(mpirun(RANKS, "run", "--plan", mixed, *QUICK, "--out", out), "separate plan files", launched=True)
        check(not os.path.exists(out), "a bad plan file left an output file")
        both = plan_file(d, "both.json", [("ep2", None, ep2), ("ep4", None, ep4)])
        expect_bad_input(mpirun(4, "run", "--plan", both, *QUICK, "--out", out), "8 slots", launched=True)
        check(not os.path.exists(out), "a plan for another world left an output file")
        # One routing skew for a plan and its run: the plan priced 0 (the default).
        expect_bad_input(mpirun(RANKS, "run", "--plan", both, *QUICK, "--a2av-skew", "1", "--out", out), "differs from the routing skew 0.00",
                         launched=True)
        check(not os.path.exists(out), "a skew the plan did not price left an output file")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    print("PASS", sys.argv[1])
