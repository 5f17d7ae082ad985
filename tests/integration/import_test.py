"""meshbench import on the fixture logs of tests/data/import: the results files it writes read
like meshbench's own (report, compare, history), and a log it does not recognise is refused
with its line, exit status 2 and no file."""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbtest import TempDir, check, expect_bad_input, read_h5, run  # noqa: E402

DATA = os.environ.get("IMPORT_DATA", "")
NCCL = os.path.join(DATA, "nccl-tests")
OSU = os.path.join(DATA, "osu")


def imported(out, *logs, tool="nccl-tests", extra=()):
    p = run("import", tool, *logs, "--out", out, *extra)
    check(p.returncode == 0, f"import {tool} exit {p.returncode}", p)
    check(os.path.exists(out), "no results file written", p)
    return p


def test_compare_after_upgrade():
    """Two imports of one cluster, the second after an NCCL upgrade with all-reduce four times
    slower from 1 MiB up: compare exits 1 and names all_reduce and its sizes, not all_gather."""
    with TempDir() as d:
        base, new = os.path.join(d, "base.h5"), os.path.join(d, "new.h5")
        imported(base, f"{NCCL}/all_reduce_perf.log", f"{NCCL}/all_gather_perf.log", extra=("--started-at", "2026-11-01T10:00:00Z"))
        imported(new, f"{NCCL}/all_reduce_perf.slow.log", f"{NCCL}/all_gather_perf.rerun.log", extra=("--started-at", "2026-11-08T10:00:00Z"))
        with read_h5(base) as f:
            rows = f["/measurements"][:]
            ops = {r["op"].decode() for r in rows}
            timings = {r["timing"].decode() for r in rows}
            check(ops == {"all_reduce", "all_gather"}, f"ops {ops}")
            check(timings == {"batched", "batched_in_place"}, f"timings {timings}")
            check(len(rows) == 94, f"{len(rows)} rows, expected 25 + 22 sizes x 2 timings")
            versions = {r["name"].decode(): r["value"].decode() for r in f["/provenance/versions"][:]}
            check(versions.get("nccl") == "2.28.3", f"versions {versions}")
            check(versions.get("devices") == "8x NVIDIA H100 80GB HBM3", f"versions {versions}")
            hosts = [h.decode() for h in f["/run/hosts"][:]]
            check(hosts == ["gpu-a1"] * 4 + ["gpu-a2"] * 4, f"hosts {hosts}")
            # busbw with meshbench's factor: all_reduce 2(n-1)/n of algbw, algbw bytes over time.
            r = [x for x in rows if x["op"] == b"all_reduce" and x["bytes"] == 128 << 20 and x["timing"] == b"batched"][0]
            algbw = r["bytes"] / r["t_median_us"] / 1e3
            check(abs(r["algbw_gbps"] - algbw) < 1e-9 and abs(r["busbw_gbps"] - algbw * 2 * 7 / 8) < 1e-9, f"bandwidths {r}")
        p = run("report", base)
        check(p.returncode == 0, "report of an imported file", p)
        check("dp all_reduce: busbw GB/s" in p.stdout and "dp all_gather: busbw GB/s" in p.stdout, "report's busbw tables", p)
        p = run("compare", base, new)
        check(p.returncode == 1, f"compare exit {p.returncode}, expected 1 (regression)", p)
        summary = [l for l in p.stdout.splitlines() if l.strip().startswith("summary:")]
        check(summary and "all_reduce" in summary[0] and "MiB" in summary[0], "summary names all_reduce at a size", p)
        check("nccl 2.28.3 → 2.28.9" in p.stdout, "the NCCL upgrade is named", p)
        flagged = [l for l in p.stdout.splitlines() if l.split()[:1] == ["regressed"] and " all_reduce " in l]
        sizes = {l.split()[4] + " " + l.split()[5] for l in flagged}
        expected = {f"{s} MiB" for s in (1, 2, 4, 8, 16, 32, 64, 128)}
        check(expected <= sizes, f"regressed sizes {sorted(sizes)}, expected every size from 1 MiB", p)
        check(not any(l.split()[:1] == ["regressed"] and " all_gather " in l for l in p.stdout.splitlines()), "all_gather is not flagged", p)
        check("KiB" not in "".join(flagged), "no size below 1 MiB is flagged", p)
        p = run("compare", base, base)
        check(p.returncode == 0, f"compare of a file with itself exit {p.returncode}", p)


def scaled_log(src, dst, factor):
    """nccl-tests' log with both time columns multiplied by factor (the importer recomputes the
    bandwidths from size and time)."""
    out = []
    with open(src) as f:
        for line in f:
            cols = line.split()
            if cols and cols[0].isdigit() and len(cols) >= 13:
                cols[5] = f"{float(cols[5]) * factor:.2f}"
                cols[9] = f"{float(cols[9]) * factor:.2f}"
                line = "  ".join(cols) + "\n"
            out.append(line)
    with open(dst, "w") as f:
        f.write("".join(out))


def test_compare_uniformly_slower():
    """The second log three times slower at every op and size: no point stands out from the
    others, so compare calls the whole run slower, exits 1 and still names each op with its sizes
    and change."""
    with TempDir() as d:
        base, new = os.path.join(d, "base.h5"), os.path.join(d, "new.h5")
        logs = [f"{NCCL}/all_reduce_perf.log", f"{NCCL}/all_gather_perf.log"]
        slow = []
        for log in logs:
            slow.append(os.path.join(d, os.path.basename(log).replace(".log", ".x3.log")))
            scaled_log(log, slow[-1], 3.0)
        imported(base, *logs, extra=("--started-at", "2026-11-01T10:00:00Z"))
        imported(new, *slow, extra=("--started-at", "2026-11-08T10:00:00Z"))
        p = run("compare", base, new)
        check(p.returncode == 1, f"compare exit {p.returncode}, expected 1 (the whole run slower)", p)
        check("WHOLE RUN REGRESSION" in p.stdout, "the whole run is called slower", p)
        for timing in ("batched", "batched_in_place"):
            check(f"{timing}: dp all_reduce 8 B-128 MiB: +200.0%" in p.stdout, f"{timing}: all_reduce named with its sizes and change", p)
            check(f"{timing}: dp all_gather 64 B-128 MiB: +200.0%" in p.stdout, f"{timing}: all_gather named with its sizes and change", p)
        p = run("compare", new, base)
        check(p.returncode == 0, f"the other way round (faster) exit {p.returncode}", p)
        check("dp all_reduce 8 B-128 MiB: -66.7%" in p.stdout, "the faster run names its ops too", p)


def test_history_step():
    """Eight imported logs, the last four after an upgrade: history finds the step at run 5 and
    names the NCCL change there."""
    with TempDir() as d:
        logs = sorted(glob.glob(f"{NCCL}/history/all_reduce_perf.day*.log"))
        check(len(logs) == 8, f"{len(logs)} history logs")
        for i, log in enumerate(logs, start=1):
            imported(os.path.join(d, f"day{i}.h5"), log, extra=("--started-at", f"2026-11-0{i}T10:00:00Z"))
        # Eight runs leave the permutation test little room: the step's p-values are 0.02-0.035,
        # above the default 0.01, hence --p-value 0.05.
        p = run("history", d, "--p-value", "0.05", timeout=300)
        check(p.returncode == 1, f"history exit {p.returncode}, expected 1 (a change)", p)
        changed = [l for l in p.stdout.splitlines() if "dp all_reduce at 16 MiB [batched, concurrent]" in l]
        starts = [re.search(r"\]\s+(\d+)\s+\+", l) for l in changed]
        check(len(starts) == 1 and starts[0] and starts[0].group(1) == "5", "the 16 MiB point changes from run 5", p)
        check("nccl 2.28.3 → 2.28.9" in p.stdout, "history names the NCCL change", p)
        small = [l for l in p.stdout.splitlines() if "all_reduce at 64 KiB [batched," in l]
        check(not small, "64 KiB, not slowed, has no change", p)


def test_osu_logs():
    """OSU 7.4 logs: sizes in nccl-tests' convention, busbw with meshbench's factors."""
    with TempDir() as d:
        out = os.path.join(d, "osu.h5")
        imported(out, f"{OSU}/allreduce_full.log", f"{OSU}/allgather.log", f"{OSU}/alltoall.log", tool="osu", extra=("--ranks", "2"))
        with read_h5(out) as f:
            rows = f["/measurements"][:]
            check(f.attrs["backend"] == b"mpi" or f.attrs["backend"] == "mpi", "backend mpi")
            ag = [r for r in rows if r["op"] == b"all_gather" and r["bytes"] == 8][0]  # OSU's 4 B per rank, 2 ranks
            check(abs(ag["t_median_us"] - 0.84) < 1e-9, f"all_gather at 8 B {ag}")
            check(abs(ag["busbw_gbps"] - 8 / 0.84 / 1e3 * 0.5) < 1e-12, f"all_gather busbw {ag}")
            ar = [r for r in rows if r["op"] == b"all_reduce" and r["bytes"] == 4][0]
            check(abs(ar["t_min_us"] - 1.41) < 1e-9 and abs(ar["t_max_us"] - 1.44) < 1e-9, f"-f's min and max {ar}")
        p = run("report", out)
        check(p.returncode == 0, "report of an OSU import", p)
        p = run("import", "osu", f"{OSU}/allreduce.log", "--out", os.path.join(d, "x.h5"))
        expect_bad_input(p, "allreduce.log:2: OSU does not print how many ranks ran")


def test_refusals():
    """A log in an unknown format, and logs the importer will not guess at: one line naming the
    file and line, exit 2, and no file (not even a partial one) left behind."""
    cases = [
        ("nccl-tests", f"{DATA}/unknown_format.csv", "unknown_format.csv:1: unrecognised line"),
        ("osu", f"{DATA}/unknown_format.csv", "unknown_format.csv:1: unrecognised line"),
        ("nccl-tests", f"{OSU}/allreduce.log", "allreduce.log:2: this is an OSU micro-benchmarks log"),
        ("nccl-tests", f"{NCCL}/bad_cut_row.log", "bad_cut_row.log:21: a result row of 6 fields where"),
        ("nccl-tests", f"{NCCL}/bad_broadcast.log", "bad_broadcast.log:2: broadcast_perf measures a collective meshbench does not"),
        ("nccl-tests", f"{NCCL}/bad_cut.json", "bad_cut.json:1: not complete JSON"),
    ]
    with TempDir() as d:
        out = os.path.join(d, "out.h5")
        for tool, log, needle in cases:
            # A good log first: the refusal of the second must leave no file for the first either.
            p = run("import", tool, f"{NCCL}/all_reduce_perf.log" if tool == "nccl-tests" else f"{OSU}/latency.log", log, "--out", out)
            expect_bad_input(p, needle)
            check(os.listdir(d) == [], f"files left after a refused import: {os.listdir(d)}", p)
        imported(out, f"{NCCL}/no_check.log")
        p = run("import", "nccl-tests", f"{NCCL}/no_check.log", "--out", out)
        expect_bad_input(p, "exists")
        p = run("import", "nccl-tests", f"{NCCL}/threads.log", "--out", out, "--force")
        check(p.returncode == 0, "--force replaces the file", p)
        p = run("import", "nccl-tests", f"{NCCL}/all_reduce_perf.log", f"{NCCL}/threads.log", "--out", os.path.join(d, "two.h5"))
        expect_bad_input(p, "threads.log ran on other hosts than")


PUBLIC = os.path.join(DATA, "public")
# tests/data/import/public (SOURCES.md there), unchanged: (tool, log, extra options, sizes,
# lines skipped), both counted by hand from the file. The two logs of nccl-tests#290 name no
# binary anywhere, so --op; OSU never prints its rank count, so --ranks (the command's -n/-np).
PUBLIC_LOGS = [
    ("nccl-tests", "nccl-tests-issue-287-rtx5090-1gpu-allreduce-prompt.log", (), 25, 1),
    ("nccl-tests", "nccl-tests-issue-290-h100-1node-allreduce.log", ("--op", "all_reduce"), 6, 0),
    ("nccl-tests", "nccl-tests-issue-290-h100-2node-allreduce-srun.log", ("--op", "all_reduce"), 11, 1),
    ("nccl-tests", "nccl-tests-issue-309-h100-2node-allreduce.log", (), 32, 9),
    ("nccl-tests", "nccl-tests-issue-309-h100-2node-allreduce-ring.log", (), 14, 2),
    ("nccl-tests", "nccl-tests-issue-309-h100-4node-allreduce.log", (), 32, 2),
    ("nccl-tests", "nccl-tests-issue-309-h100-8node-allreduce-prompt.log", (), 14, 1),
    ("nccl-tests", "oci-gb300-1node-alltoall.log", (), 2, 0),
    ("nccl-tests", "ocitutorials-a100-1node-allreduce.log", (), 1, 1),
    ("nccl-tests", "ocitutorials-a100-2node-allreduce.log", (), 1, 1),
    ("osu", "osu-jsc-tutorial-allreduce-16mib.log", ("--ranks", "4"), 1, 1),
    ("osu", "osu-jsc-tutorial-allreduce-1gib-ucc.log", ("--ranks", "4"), 1, 1),
    ("osu", "osu-mvapich2-gdr-a100-allreduce.log", ("--ranks", "2"), 19, 6),
]


def test_public_log(name):
    """One log as people pasted it (prompts, commands, launcher and MPI messages around the
    table): it imports unchanged, every row read, its skipped lines counted in the output."""
    entry = [e for e in PUBLIC_LOGS if e[1] == name]
    check(len(entry) == 1, f"{name} has no entry in PUBLIC_LOGS (sizes and skipped lines counted by hand)")
    tool, name, extra, sizes, skipped = entry[0]
    with TempDir() as d:
        out = os.path.join(d, "out.h5")
        p = imported(out, os.path.join(PUBLIC, name), tool=tool, extra=extra)
        lines = [l.strip() for l in p.stdout.splitlines() if l.strip().startswith("lines skipped:")]
        check(len(lines) == 1 and lines[0].startswith(f"lines skipped: {skipped} that are not"), f"{name}: skipped line {lines}", p)
        with read_h5(out) as f:
            rows = len(f["/measurements"][:])
            versions = {r["name"].decode(): r["value"].decode() for r in f["/provenance/versions"][:]}
        expected = sizes * (2 if tool == "nccl-tests" else 1)  # nccl-tests: out-of-place and in-place
        check(rows == expected, f"{name}: {rows} rows, expected {expected}", p)
        if name == "nccl-tests-issue-309-h100-2node-allreduce.log":
            check(versions.get("nccl") == "2.26.2", f"the NCCL version the log states: {versions}", p)


def test_public_refusals():
    """--verbose lists the first skipped lines; --strict refuses the prompt as import did before;
    a log that names no binary anywhere asks for --op; neither leaves a file."""
    with TempDir() as d:
        p = run("import", "nccl-tests", os.path.join(PUBLIC, "nccl-tests-issue-309-h100-2node-allreduce.log"),
                "--out", os.path.join(d, "v.h5"), "--verbose")
        check(p.returncode == 0 and "nccl-tests-issue-309-h100-2node-allreduce.log:1: '/mnt/nfs/openmpi" in p.stdout
              and "nccl-tests-issue-309-h100-2node-allreduce.log: 4 more" in p.stdout, "--verbose lists the first skipped lines", p)
        bad = os.path.join(d, "bad")
        os.mkdir(bad)
        p = run("import", "nccl-tests", os.path.join(PUBLIC, "nccl-tests-issue-309-h100-8node-allreduce-prompt.log"), "--strict",
                "--out", os.path.join(bad, "x.h5"))
        expect_bad_input(p, "nccl-tests-issue-309-h100-8node-allreduce-prompt.log:1: unrecognised line '$ mpirun -np 64")
        p = run("import", "nccl-tests", os.path.join(PUBLIC, "nccl-tests-issue-290-h100-1node-allreduce.log"), "--out",
                os.path.join(bad, "x.h5"))
        expect_bad_input(p, "nccl-tests-issue-290-h100-1node-allreduce.log:16: the log does not name its collective")
        check("give --op" in p.stderr, "the way out is --op", p)
        check(os.listdir(bad) == [], f"files left after a refused import: {os.listdir(bad)}", p)


MEGATRON_LOGS = os.path.join(DATA, "..", "megatron-logs")


def test_megatron_logs():
    """import megatron-log on the published Megatron-LM logs (tests/data/megatron-logs, SOURCES.md
    there), unchanged: the step time is the median of the iteration lines after the first, taken
    here from the text by a regular expression; the layout the arguments state; bad input refused
    with one line and exit 2."""
    import statistics
    logs = sorted(f for f in os.listdir(MEGATRON_LOGS) if f.endswith(".log"))
    check(len(logs) >= 5, f"{len(logs)} logs in tests/data/megatron-logs")
    for name in logs:
        path = os.path.join(MEGATRON_LOGS, name)
        text = open(path, errors="replace", newline="").read()
        times = [float(t) for t in re.findall(r"elapsed time per iteration \(ms\): ([0-9.]+)", text)]
        p = run("import", "megatron-log", path, "--format", "json")
        check(p.returncode == 0, f"{name}: import megatron-log exited {p.returncode}", p)
        j = json.loads(p.stdout)
        check(j["iteration_lines"] == len(times), f"{name}: {j['iteration_lines']} iteration lines, the text has {len(times)}", p)
        want = statistics.median(times[1:] if len(times) > 2 else times)
        check(abs(j["step_ms"] - want) <= 1e-9 * want, f"{name}: step {j['step_ms']} ms, want {want}", p)
        newline_lines = text.count("\n") + (0 if text.endswith("\n") else 1)  # bare CRs (a progress bar) do not end a line
        check(j["lines"] == newline_lines, f"{name}: {j['lines']} lines read of {newline_lines}", p)
    rocm = json.loads(run("import", "megatron-log", os.path.join(MEGATRON_LOGS, "rocm-mi300x-8gpu-tp4pp2.log"), "--format", "json").stdout)
    check(rocm["layout"] == {"tp": 4, "pp": 2, "cp": 1, "ep": 1, "etp": 4, "vpp": 1, "world": 8}, f"rocm layout {rocm['layout']}")
    check(rocm["job"]["global_batch"] == 512 and rocm["job"]["seq_len"] == 8192, f"rocm job {rocm['job']}")
    t = run("import", "megatron-log", os.path.join(MEGATRON_LOGS, "ling-mini-2.0-moe-cpt-8k.log"))
    check("layout: not stated" in t.stdout and "--measured-layout" in t.stdout, "a log without arguments says how to give the layout", t)
    expect_bad_input(run("import", "megatron-log", f"{NCCL}/all_reduce_perf.log"), "is not a Megatron-LM log")
    with TempDir() as d:
        head = os.path.join(d, "head.log")
        with open(os.path.join(MEGATRON_LOGS, "rocm-mi300x-8gpu-tp4pp2.log"), errors="replace") as f, open(head, "w") as out:
            for line in f:
                out.write(line)
                if "end of arguments" in line:
                    break
        expect_bad_input(run("import", "megatron-log", head), "no iteration line")
        expect_bad_input(run("import", "megatron-log", os.path.join(d, "missing.log")), "cannot read log")
        check(os.listdir(d) == ["head.log"], f"files left behind: {os.listdir(d)}")


CASES = {name[len("test_"):]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    CASES[sys.argv[1]](*sys.argv[2:])
    print("PASS", *sys.argv[1:])
