"""`meshbench calibrate FILE` and `report --cost-model` on a run measured under mpirun (2 ranks,
this machine): the fit writes a calibration, refuses what cannot determine it, and the report
judges the calibrated model beside the uncalibrated one."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, expect_bad_input, mpirun, run  # noqa: E402

# TP2 on two CPU slots of one node, every group alone too: from 8 B, both ends of the sizes.
RUN = ["run", "--tp", "2", "--budget", "0.05", "--min-iters", "20", "--batches", "3", "--isolated", "--timing", "per_iteration"]


def measure(d, name, *sizes):
    path = os.path.join(d, name)
    p = mpirun(2, *RUN, *sizes, "--out", path, timeout=600)
    check(p.returncode == 0, f"run for {name} failed", p)
    return path


def main():
    with TempDir() as d:
        good = measure(d, "run.h5", "-b", "8", "-e", "4M", "-f", "8")
        cost = os.path.join(d, "cost.json")
        p = run("calibrate", good, "--out", cost)
        check(p.returncode == 0, "calibrate failed", p)
        check("ring_all_reduce" in p.stdout and "alpha us" in p.stdout, "the fit is not printed", p)
        with open(cost, encoding="utf-8") as f:
            c = json.load(f)
        check(c.get("calibration_version") == 1, f"not a calibration file: {sorted(c)}", p)

        # Never replaced without --force; replaced with it.
        expect_bad_input(run("calibrate", good, "--out", cost), "--force")
        p = run("calibrate", good, "--out", cost, "--force", "--format", "json")
        check(p.returncode == 0 and json.loads(p.stdout).get("calibration_version") == 1, "calibrate --force --format json failed", p)

        p = run("report", good, "--cost-model", cost, "--format", "json")
        check(p.returncode == 0, "report --cost-model failed", p)
        acc = json.loads(p.stdout)["prediction_accuracy"]
        names = [x["name"] for x in acc["predictors"]]
        check(names == ["uncalibrated", "calibrated"], f"predictors {names}", p)
        for x in acc["predictors"]:
            check(x["points"]["all"]["points"] > 0, f"{x['name']} judged no point", p)
        p = run("report", good, "--cost-model", cost)
        check(p.returncode == 0 and "prediction accuracy" in p.stdout, "text report has no accuracy section", p)
        p = run("report", good, "--cost-model", cost, "--format", "csv")
        check(p.returncode == 0 and ",calibrated" in p.stdout and "accuracy_point" in p.stdout, "csv has no calibrated accuracy", p)
        plots = os.path.join(d, "plots")
        p = run("report", good, "--cost-model", cost, "--plot", plots, timeout=300)
        check(p.returncode == 0 and os.path.getsize(os.path.join(plots, "predicted_vs_measured.png")) > 10000,
              "no predicted_vs_measured.png with both predictors", p)

        # A run without the latency end cannot determine alpha: one line, exit 2, no file.
        narrow = measure(d, "narrow.h5", "-b", "64K", "-e", "1M", "-f", "4")
        out = os.path.join(d, "narrow.json")
        expect_bad_input(run("calibrate", narrow, "--out", out), "-b 8 -e 64M")
        check(not os.path.exists(out), "a refused fit wrote its file")
        expect_bad_input(run("calibrate", os.path.join(d, "missing.h5"), "--out", out), "missing.h5")
        # A malformed calibration for the report.
        bad = os.path.join(d, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("{ not json")
        expect_bad_input(run("report", good, "--cost-model", bad), "bad.json")
    print("PASS calibrate")


if __name__ == "__main__":
    main()
