#!/usr/bin/python3
"""The suite's time budget, read from what CTest recorded (BUILD/Testing/Temporary/CTestCostData.txt:
each test's average time over the runs in that tree). Prints the slowest tests, then checks:
  - a test that took over 30 s is named in docs/development.md's "Test time" table, which says
    why it cannot be cheaper;
  - an integration test that `scripts/test.sh --quick` runs (not labelled slow) took under 5 s.
A slower machine of the same kind has taken up to 2x as long, so a check fails only past twice
its budget (60 s undocumented, 10 s in the quick set) and warns between once and twice.
  scripts/test_times.py [--write LIST] [BUILD_DIR]   (LIST: every test's time, slowest first)
exit 0 within budget, 1 over it, 2 when nothing was recorded"""
import os
import re
import subprocess
import sys

DOC_BUDGET_S = 30.0
QUICK_BUDGET_S = 5.0
MACHINE_FACTOR = 2.0
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def read_costs(build):
    path = os.path.join(build, "Testing", "Temporary", "CTestCostData.txt")
    costs = {}
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("---"):
                    break
                # "NAME RUNS SECONDS"; a parameterised GoogleTest name may hold spaces.
                parts = line.rstrip("\n").rsplit(" ", 2)
                if len(parts) == 3:
                    try:
                        costs[parts[0]] = float(parts[2])
                    except ValueError:
                        pass
    except OSError:
        pass
    return costs


def documented_tests():
    """Test names in the first column of docs/development.md's "Test time" table."""
    with open(os.path.join(ROOT, "docs", "development.md")) as f:
        text = f.read()
    start = text.find("## Test time")
    section = text[start:text.find("\n## ", start + 1)] if start >= 0 else ""
    return set(re.findall(r"^\| `([^`]+)` \|", section, re.M))


def listed(build, *selection):
    listing = subprocess.run(["ctest", "-N", *selection], cwd=build, capture_output=True, text=True).stdout
    return set(re.findall(r"Test +#\d+: (\S+)", listing))


def quick_tests(build):
    """The integration tests of `scripts/test.sh --quick` (the unit tests are all in it, whatever
    they take). Not `ctest -N -LE slow`: that lists the fixtures its tests need, slow or not."""
    return listed(build) - listed(build, "-L", "^slow$") - listed(build, "-L", "^unit$")


def main():
    args = sys.argv[1:]
    listing = None
    if len(args) >= 2 and args[0] == "--write":
        listing, args = args[1], args[2:]
    build = args[0] if args else os.path.join(ROOT, "build")
    costs = read_costs(build)
    if not costs:
        print(f"test_times: no test times recorded in {build}; run the tests first", file=sys.stderr)
        return 2
    slowest = sorted(costs.items(), key=lambda kv: -kv[1])
    if listing:
        with open(listing, "w") as f:
            f.writelines(f"{cost:8.2f} s  {name}\n" for name, cost in slowest)
    print(f"test_times: {len(costs)} tests, {sum(costs.values()):.0f} s in all (per test, summed); the slowest:")
    for name, cost in slowest[:10]:
        print(f"  {cost:7.1f} s  {name}")
    documented, quick = documented_tests(), quick_tests(build)
    status = 0
    for name, cost in slowest:
        over_doc = name not in documented and cost > DOC_BUDGET_S
        over_quick = name in quick and cost > QUICK_BUDGET_S
        for over, budget, fix in ((over_doc, DOC_BUDGET_S, "name it in docs/development.md, \"Test time\", with why it cannot be cheaper"),
                                  (over_quick, QUICK_BUDGET_S, "make it cheaper or label it slow (tests/CMakeLists.txt, MESHBENCH_SLOW_TESTS)")):
            if not over:
                continue
            failed = cost > MACHINE_FACTOR * budget
            print(f"test_times: {'error' if failed else 'warning'}: {name} took {cost:.1f} s, over {budget:.0f} s: {fix}")
            status = 1 if failed else status
    return status


if __name__ == "__main__":
    sys.exit(main())
