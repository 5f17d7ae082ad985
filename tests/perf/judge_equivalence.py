#!/usr/bin/python3
"""Two meshbench builds' compare on the same synthetic inputs: their exit statuses side by side
and whether any point's or family's verdict differs. For a change to the judges that must not
move their decisions (a restructuring), or to count what a new rule moves.

Synthetic reruns of SOURCE (report_h5edit.plant_noise: 3% per point, 2% per run, seeded), each
judged as a baseline set (the 3 runs before it), an interleaved window (the runs either side;
honest runs only) and two files (the run before it); honest, every point +10%, one point +20%.
Prints "form kind old_exit new_exit count" rows and, per form, the number of cases whose unit
verdicts differ.

  tests/perf/judge_equivalence.py --old /tmp/old/meshbench --new build/meshbench \\
      --source tests/data/compare_tcp/shm.h5 --runs 24
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from report_h5edit import plant_noise, set_started_at  # noqa: E402

UNIT_NAMES = {"regression": "regressed", "improvement": "improved"}  # compare's JSON version 1


def judge(binary, args):
    p = subprocess.run([binary, "compare", *args, "--format", "json"], capture_output=True, text=True)
    if p.returncode == 2:
        sys.exit(f"judge_equivalence: {binary} refused {args}: {p.stderr.strip()}")
    j = json.loads(p.stdout)
    points = j.get("points", j.get("rows", []))
    families = [f for f in j.get("families", []) if f.get("level") != "run"]
    verdicts = [UNIT_NAMES.get(x["verdict"], x["verdict"]) for x in points]
    return p.returncode, verdicts + sorted(UNIT_NAMES.get(f["verdict"], f["verdict"]) for f in families)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--source", required=True, help="a results file to make synthetic reruns of")
    ap.add_argument("--runs", type=int, default=24)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        def rerun(k, kind="honest"):
            path = os.path.join(d, f"r{k:02d}_{kind}.h5")
            if not os.path.exists(path):
                whole, only = (1.10, None) if kind == "uniform10" else (1.0, {5: 1.20} if kind == "point20" else None)
                plant_noise(a.source, path, 0.03, seed=1000 + k, run_sigma=0.02, whole=whole, only=only)
                set_started_at(path, f"2026-11-{1 + k // 24:02d}T{k % 24:02d}:00:00Z")
            return path
        outcomes, differing, cases = collections.Counter(), collections.Counter(), collections.Counter()
        for k in range(3, a.runs - 1):
            for kind in ("honest", "uniform10", "point20"):
                new = rerun(k, kind)
                forms = {"set": [rerun(k - 3), rerun(k - 2), rerun(k - 1), "--", new], "two_files": [rerun(k - 1), new]}
                if kind == "honest":
                    forms["interleaved"] = [rerun(k - 1), rerun(k + 1), "--", new, "--interleaved"]
                for form, args in forms.items():
                    (old_exit, old_units), (new_exit, new_units) = judge(a.old, args), judge(a.new, args)
                    outcomes[(form, kind, old_exit, new_exit)] += 1
                    differing[form] += old_units != new_units
                    cases[form] += 1
        print("form kind old_exit new_exit count")
        for key in sorted(outcomes):
            print(*key, outcomes[key])
        for form in sorted(cases):
            print(f"{form}: {cases[form]} cases; {differing[form]} with a point's or family's verdict differing")


if __name__ == "__main__":
    main()
