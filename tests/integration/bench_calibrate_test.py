"""Integration tests of `meshbench calibrate` without results files (the probe) and of
`run --cost-model` / `run --calibrate`, under mpirun on this machine (CPU slots, MPI backend).
Nothing here compares timings: only what is written, and which exit status comes back."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, expect_bad_input, mpirun, read_h5

# A small size range keeps the probe short; the sizes still span latency- and bandwidth-bound points.
QUICK = ["-b", "8", "-e", "256K", "-f", "8", "--budget", "0.05", "--min-iters", "3", "--warmup", "1"]
RUN_QUICK = ["-b", "1K", "-e", "16K", "-f", "4", "--budget", "0.05", "--min-iters", "3", "--timing", "per_iteration",
             "--no-doctor", "--no-check"]


def intra_classes(h5_path):
    """Link classes between distinct slots of one node, as the probe's results file stores them."""
    with read_h5(h5_path) as f:
        classes = set()
        for name in f["topology/layouts"]:
            ds = f[f"topology/layouts/{name}/link_class"]
            names = {v: k for k, v in ds.dtype.metadata["enum"].items()} if ds.dtype.metadata else None
            m = ds[:]
            for a in range(m.shape[0]):
                for b in range(m.shape[1]):
                    if a != b:
                        classes.add(names[int(m[a][b])] if names else str(m[a][b]))
        return classes


def probe(d, ranks, name="cost.json", extra=()):
    out = os.path.join(d, name)
    p = mpirun(ranks, "calibrate", "--out", out, *QUICK, *extra, timeout=600)
    return out, p


def test_probe_writes_calibration(ranks):
    with TempDir() as d:
        out, p = probe(d, ranks)
        check(p.returncode == 0, f"calibrate on {ranks} ranks failed", p)
        with open(out) as f:
            cal = json.load(f)
        check(cal.get("calibration_version") == 1, f"no calibration_version 1 in {out}: {list(cal)}")
        files = [os.path.join(d, f"cost.probe.{p}.h5") for p in ("collectives", "p2p")]
        for path in files:
            check(os.path.exists(path), f"probe results file {path} missing", p)
        expected = intra_classes(files[0])
        fitted = {link["link"] for link in cal["links"]}
        check(expected <= fitted, f"the topology's classes {sorted(expected)} are not all fitted: {sorted(fitted)}", p)
        check("NET" not in fitted, f"one node, yet NET was fitted: {sorted(fitted)}")
        families = {(link["link"], link["family"]) for link in cal["links"]}
        for c in expected:
            got = {fam for (l, fam) in families if l == c}
            check(len(got) == 4, f"{c}: expected the four op families, got {sorted(got)}")
        for path in files:
            with read_h5(path) as f:
                check(f.attrs["status"] == "complete", f"{path} not complete")
                stored = json.loads(f.attrs["calibration_json"])
                check(stored == cal, f"{path}'s calibration_json differs from {out}")
                m = f["measurements"][:]
                conc = {x.decode() for x in m["concurrency"]}
                check(conc == {"isolated", "concurrent"}, f"{path}: concurrency {conc}")
                sizes = sorted({int(b) for b in m["bytes"]})
                check(sizes[0] == 8 and sizes[-1] == 256 * 1024, f"{path}: sizes {sizes}")
        check("# calibrate: probe 1/2 collectives" in p.stdout, "no progress lines on stdout", p)
        print(f"ok: {ranks} ranks: fitted {sorted(fitted)}; {p.stdout.strip().splitlines()[-3]}")


def test_cost_model_plans_the_run():
    with TempDir() as d:
        cost, p = probe(d, 2)
        check(p.returncode == 0, "calibrate failed", p)
        out = os.path.join(d, "run.h5")
        p = mpirun(2, "run", "--tp", "2", "--cost-model", cost, *RUN_QUICK, "--out", out)
        check(p.returncode == 0, "run --cost-model with this topology's calibration failed", p)
        with read_h5(out) as f:
            check("calibration_json" in f.attrs, "the run's file does not record the calibration it was planned with")
            check(len(f["measurements"]) > 0, "nothing measured")
        # Another topology (4 slots, not 2): refused before anything is written.
        other = os.path.join(d, "other.h5")
        p = mpirun(4, "run", "--tp", "2", "--cost-model", cost, *RUN_QUICK, "--out", other)
        expect_bad_input(p, "calibration", launched=True)
        check(not os.path.exists(other), "a refused run left a results file")


def test_run_calibrate_measures_top_and_baseline():
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(4, "run", "--tp", "2", "--ep", "2", "--etp", "1", "--calibrate", "--top", "1", *RUN_QUICK, "--out", out,
                   timeout=600)
        check(p.returncode == 0, "run --calibrate failed", p)
        for path in ("run.probe.collectives.h5", "run.probe.p2p.h5", "run.cost.json"):
            check(os.path.exists(os.path.join(d, path)), f"run --calibrate did not write {path}", p)
        with read_h5(out) as f:
            check("calibration_json" in f.attrs, "no calibration_json in the run's file")
            table = f["mappings/table"][:]
            hows = [x.decode() for x in table["how"]]
            names = [x.decode() for x in table["name"]]
            check(hows[0].startswith("chosen by prediction (1 of "), f"first mapping's how: {hows[0]}")
            # The layout's own order is measured too: either the prediction chose it or it is the baseline.
            own = "order:tp-cp-ep-dp-pp"
            check(own in names, f"the baseline {own} is not measured: {names}")
            if names[0] != own:
                check(len(names) == 2 and hows[1].startswith("baseline"), f"mappings {names}, how {hows}")


def test_bad_input():
    with TempDir() as d:
        # Three slots cannot be paired.
        out = os.path.join(d, "cost.json")
        p = mpirun(3, "calibrate", "--out", out, *QUICK)
        expect_bad_input(p, "odd number of slots", launched=True)
        check(not os.path.exists(out), "a refused probe wrote the calibration")
        # An existing calibration file without --force: refused before measuring.
        with open(out, "w") as f:
            f.write("{}")
        p = mpirun(2, "calibrate", "--out", out, *QUICK)
        expect_bad_input(p, "--force", launched=True)
        check(not os.path.exists(os.path.join(d, "cost.probe.collectives.h5")), "a refused probe measured anyway")
        p = mpirun(2, "calibrate", *QUICK)
        expect_bad_input(p, "--out", launched=True)


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "probe_writes_calibration_2":
        test_probe_writes_calibration(2)
    elif case == "probe_writes_calibration_4":
        test_probe_writes_calibration(4)
    else:
        globals()["test_" + case]()
