"""Integration tests of `meshbench io` under mpirun on this machine: every rank writes its shard
into a temporary folder and reads it back, into a file of its own and into one shared file."""
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, env, expect_bad_input, meshbench, mpirun, rank_pids, read_h5, run, wait_for


def io_rows(path):
    with read_h5(path) as f:
        check("io" in f, f"{path} has no /io table")
        return f["io"][:]


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def left_behind(folder):
    """What io left in `folder` (its own subfolder and anything in it)."""
    return sorted(os.listdir(folder))


def check_verified(rows, ranks, shards, repeats):
    launch = [r for r in rows if text(r["host"]) == ""]
    check(len(launch) == len(shards) * repeats * 2 * 2, f"expected one launch row per size, repeat, method and phase, got {len(launch)}")
    check(len(rows) == 2 * len(launch), "expected one node row beside every launch row (one node)")
    for r in launch:
        check(r["ranks"] == ranks, f"ranks {r['ranks']}")
        check(r["bytes"] == ranks * r["shard_bytes"], f"bytes {r['bytes']} for {ranks} shards of {r['shard_bytes']}")
        check(r["shard_bytes"] in shards, f"shard {r['shard_bytes']} not asked for")
        check(r["seconds"] > 0 and r["gbps"] > 0, "non-positive time or bandwidth")
        check(r["wrong"] == 0, f"{text(r['method'])} {text(r['phase'])}: {r['wrong']} wrong words in an honest run")
        if text(r["phase"]) == "read":
            check(text(r["read_mode"]) in ("o_direct", "fadvise_dontneed"), f"read mode {r['read_mode']}")
            check(0 <= r["cached_fraction"] <= 1, f"cached fraction {r['cached_fraction']}")
        else:
            check(text(r["read_mode"]) == "" and r["cached_fraction"] == -1, "a write row with a read mode")
    methods = {(text(r["method"]), text(r["phase"])) for r in launch}
    check(methods == {(m, p) for m in ("file_per_rank", "shared_file") for p in ("write", "read")}, f"methods and phases {methods}")


def test_two_ranks_verify():
    with TempDir() as d:
        folder, out = os.path.join(d, "io"), os.path.join(d, "io.h5")
        os.mkdir(folder)
        # An odd size ends inside a word and a block; 64 KiB windows make several calls per shard.
        p = mpirun(2, "io", "--dir", folder, "--shard-bytes", "1M,300001", "--repeats", "2", "--window", "64K", "--out", out)
        check(p.returncode == 0, "io failed", p)
        check_verified(io_rows(out), 2, {1 << 20, 300001}, 2)
        check(left_behind(folder) == [], f"io left {left_behind(folder)} behind", p)
        check("shared_file" in p.stdout and "file_per_rank" in p.stdout, "no table on stdout", p)
        with read_h5(out) as f:
            check(f.attrs["status"] == "complete", "status not complete")
            check(len(f["measurements"]) == 0, "an io file holds no collective measurements")
        r = run("report", out)
        check(r.returncode == 0, "report of an io file failed", r)
        check("Checkpoint I/O" in r.stdout and "shared_file" in r.stdout and "ML view" not in r.stdout, "report lacks the io section", r)
        j = run("report", out, "--format", "json")
        check(j.returncode == 0, "report --format json failed", j)
        check(len(json.loads(j.stdout)["io"]) == 2 * 2 * 2, "report json: one io entry per size, method and phase")


def test_four_ranks_verify():
    with TempDir() as d:
        out = os.path.join(d, "io.h5")
        p = mpirun(4, "io", "--dir", d, "--shard-bytes", "2M", "--repeats", "1", "--window", "512K", "--out", out)
        check(p.returncode == 0, "io failed", p)
        check_verified(io_rows(out), 4, {2 << 20}, 1)
        check(left_behind(d) == ["io.h5"], f"io left {left_behind(d)} behind", p)


def test_corrupt_read_detected():
    with TempDir() as d:
        folder, out = os.path.join(d, "io"), os.path.join(d, "io.h5")
        os.mkdir(folder)
        p = mpirun(2, "io", "--dir", folder, "--shard-bytes", "1M", "--repeats", "1", "--test-corrupt", "1", "--out", out)
        check(p.returncode == 1, f"exit status {p.returncode}, expected 1 for a wrong read-back", p)
        check("wrong" in p.stderr, "no word about the wrong read-back", p)
        rows = io_rows(out)
        reads = [r for r in rows if text(r["phase"]) == "read" and text(r["host"]) == ""]
        check(len(reads) == 2 and all(r["wrong"] == 1 for r in reads), f"expected one wrong word per read, got {[r['wrong'] for r in reads]}")
        check(all(r["wrong"] == 0 for r in rows if text(r["phase"]) == "write"), "a write row counted wrong words")
        check(left_behind(folder) == [], f"io left {left_behind(folder)} behind", p)


def test_append_to_run_results():
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        p = mpirun(2, "run", "--tp", "2", "--dims", "tp", "--ops", "all_reduce", "--sizes", "1K,4K", "--timing", "per_iteration",
                   "--budget", "0.1", "--min-iters", "10", "--no-doctor", "--machine-state", "off", "--out", out)
        check(p.returncode == 0, "run failed", p)
        p = mpirun(2, "io", "--dir", d, "--shard-bytes", "256K", "--repeats", "1", "--methods", "shared_file", "--out", out, "--append")
        check(p.returncode == 0, "io --append failed", p)
        rows = io_rows(out)
        check({text(r["method"]) for r in rows} == {"shared_file"}, "--methods shared_file wrote other methods")
        with read_h5(out) as f:
            check(len(f["measurements"]) > 0, "--append lost the run's measurements")
        r = run("report", out)
        check(r.returncode == 0 and "ML view" in r.stdout and "Checkpoint I/O" in r.stdout, "report lacks the run or the io section", r)
        # Without --append an existing file is refused, and kept.
        before = os.path.getsize(out)
        expect_bad_input(mpirun(2, "io", "--dir", d, "--shard-bytes", "256K", "--out", out), "exists", launched=True)
        check(os.path.getsize(out) == before, "a refused io changed the file")


def test_workload_shard():
    with TempDir() as d:
        # 2 layers of hidden 1024 and ffn 4096, dense: 32,456,704 parameters, 16,228,352 per rank on TP2;
        # bf16 weights, fp32 gradients and 12 B of optimizer state: 18 B each, 292,110,336 B.
        workload = os.path.join(d, "w.json")
        with open(workload, "w") as f:
            json.dump({"layers": 2, "hidden": 1024, "ffn_hidden": 4096, "kv_hidden": 256, "vocab": 1000, "experts": 1, "top_k": 1}, f)
        out = os.path.join(d, "io.h5")
        p = mpirun(2, "io", "--dir", d, "--workload", workload, "--tp", "2", "--repeats", "1", "--methods", "file_per_rank", "--out", out)
        check(p.returncode == 0, "io --workload failed", p)
        check({int(r["shard_bytes"]) for r in io_rows(out)} == {292110336}, "shard size is not the workload's")
        check("optimizer states" in p.stdout, "the shard's breakdown is not printed", p)


def unwritable_folder(d):
    """A folder mkdir fails in: a read-only one for an ordinary user, /sys (EPERM) for root."""
    if os.geteuid() == 0:
        return "/sys"
    path = os.path.join(d, "ro")
    os.mkdir(path, 0o500)
    return path


def test_bad_input():
    with TempDir() as d:
        folder, out = os.path.join(d, "io"), os.path.join(d, "io.h5")
        os.mkdir(folder)
        # Under mpirun, the refusals that rank 0 decides for every rank from the folder it looks
        # at (each rank would otherwise meet the same folder); the options' own refusals need no
        # launch and run as one process, as does the budget below one shard (also under mpirun).
        launched = [
            (["--dir", os.path.join(d, "missing"), "--shard-bytes", "1M"], "does not exist"),
            (["--dir", unwritable_folder(d), "--shard-bytes", "1M"], "not writable"),
            # No disk has a petabyte free; the budget is set above it, so the free space decides.
            (["--dir", folder, "--shard-bytes", "1000000G", "--budget", "4000000G"], "free"),
            (["--dir", folder, "--shard-bytes", "64M", "--budget", "1M"], "below one shard"),
        ]
        alone = [
            (["--dir", folder], "--shard-bytes"),
            (["--dir", folder, "--shard-bytes", "1M", "--methods", "mmap"], "mmap"),
            (["--dir", folder, "--shard-bytes", "1M", "--budget", "1K"], "below one shard"),
        ]
        def left_nothing(args):
            check(not os.path.exists(out), f"{args}: a bad input left an output file")
            check(left_behind(folder) == [], f"{args}: io left {left_behind(folder)} behind")
        for args, needle in launched:
            expect_bad_input(mpirun(2, "io", *args, "--out", out), needle, launched=True)
            left_nothing(args)
        for args, needle in alone:
            expect_bad_input(run("io", *args, "--out", out), needle)
            left_nothing(args)


def test_sigterm_cleans_up():
    with TempDir() as d:
        folder, out = os.path.join(d, "io"), os.path.join(d, "io.h5")
        os.mkdir(folder)
        cmd = ["mpirun", "-np", "2", meshbench(), "io", "--dir", folder, "--shard-bytes", "64M", "--repeats", "1000", "--window", "1M",
               "--out", out]
        p = subprocess.Popen(cmd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            def shards_on_disk():
                try:
                    return any(os.listdir(os.path.join(folder, s)) for s in os.listdir(folder))
                except OSError:  # a pass's files or folder went away while listing
                    return False
            check(wait_for(shards_on_disk, 120), "io never wrote a shard")
            ranks = rank_pids(0, p.pid) + rank_pids(1, p.pid)
            check(len(ranks) == 2, f"found rank processes {ranks}")
            for pid in ranks:
                os.kill(pid, signal.SIGTERM)
            p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        check(p.returncode != 0, "io ended well after SIGTERM")
        check(left_behind(folder) == [], f"io left {left_behind(folder)} behind after SIGTERM")
        check(not os.path.exists(out), "an interrupted io left a results file")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    print("PASS", sys.argv[1])
