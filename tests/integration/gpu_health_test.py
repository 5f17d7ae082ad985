"""run's NVML sampler and doctor's GPU check through the stand-in NVML library: the real dlopen
path, readings that follow the run's points (never the clock), so what is checked is exact."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, env, expect_bad_input, fail, mpirun, read_h5, run

# One dimension, one op, one timing: four points (1K, 4K, 16K, 64K) visited in that order.
ONE = ["--tp", "2", "--dims", "tp", "--ops", "all_reduce", "--timing", "per_iteration", "-b", "1K", "-e", "64K", "-f", "4",
       "--budget", "0.05", "--min-iters", "5", "--machine-state", "off", "--no-doctor", "--gpu-sample-ms", "2"]


def fake_env(d, script, library=None):
    path = os.path.join(d, "nvml.txt")
    with open(path, "w") as f:
        f.write(script)
    return env(MESHBENCH_NVML_LIBRARY=library or os.environ["MESHBENCH_FAKE_NVML_LIBRARY"], MESHBENCH_FAKE_NVML=path)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def test_throttle_flagged_on_its_point():
    """GPU 1 (rank 1's) throttles for thermal reasons during the third point only, and GPU 0
    replays 3 PCIe packets during the second: exactly those rows say so, and the report flags
    the third point on rank 1 and nothing else."""
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        e = fake_env(d, "gpus 2\ntemperature 71\nthrottle 0x40 point 2 gpu 1\nreplays 3 point 1 gpu 0\n")
        p = mpirun(2, "run", *ONE, "--out", out, env=e)
        check(p.returncode == 0, "run failed", p)
        check("# GPU health: NVML sampled on 2 of 2 rank(s)" in p.stdout, "the console does not say the GPUs were sampled", p)
        with read_h5(out) as f:
            points = [int(b) for b in f["measurements"]["bytes"]]
            rows = f["gpu_health"][:]
        check(points == [1024, 4096, 16384, 65536], f"points measured in another order: {points}")
        check(len(rows) == 8, f"expected a row per point and rank (8), got {len(rows)}")
        for r in rows:
            point, rank = points.index(int(r["bytes"])), int(r["rank"])
            throttle, replays = text(r["throttle"]), int(r["pcie_replays"])
            where = f"point {point} rank {rank}"
            check(int(r["gpu"]) == rank, f"{where}: sampled GPU {int(r['gpu'])}, expected the slot's GPU {rank}")
            check(int(r["readings"]) >= 2, f"{where}: {int(r['readings'])} readings, at least the first and last expected")
            check(float(r["temperature_max_c"]) == 71.0, f"{where}: temperature {float(r['temperature_max_c'])}")
            want = "hw_thermal" if (point, rank) == (2, 1) else ""
            check(throttle == want, f"{where}: throttle '{throttle}', expected '{want}'")
            check(replays == (3 if (point, rank) == (1, 0) else 0), f"{where}: {replays} PCIe replays")
            check(int(r["ecc_uncorrected"]) == 0, f"{where}: ECC errors {int(r['ecc_uncorrected'])}")
        rep = run("report", out)
        check(rep.returncode == 0, "report failed", rep)
        flagged = [l for l in rep.stdout.splitlines() if "THROTTLED" in l]
        check(len(flagged) == 1, f"expected one throttled point in the report, got {flagged}", rep)
        check("16 KiB" in flagged[0] and "rank 1" in flagged[0] and "hw_thermal" in flagged[0], f"wrong point flagged: {flagged[0]}")
        rep = run("report", out, "--format", "json")
        check(rep.returncode == 0, "report --format json failed", rep)
        g = json.loads(rep.stdout)["gpu_health"]
        check([(t["bytes"], t["rank"], t["reasons"]) for t in g["throttled"]] == [(16384, 1, "hw_thermal")], f"JSON throttled: {g['throttled']}")
        replays = {h["host"]: h["pcie_replays"] for h in g["hosts"]}
        check(list(replays.values()) == [3], f"JSON hosts' replays: {replays}")


def test_nvml_absent_or_off():
    """No NVML: one line says why, and the file has no GPU table; --gpu-sample-ms 0 reads
    nothing; a negative interval is bad input."""
    with TempDir() as d:
        out = os.path.join(d, "absent.h5")
        p = mpirun(2, "run", *ONE, "--out", out, env=fake_env(d, "gpus 2\n", library="/nonexistent/libnvidia-ml.so.1"))
        check(p.returncode == 0, "run without NVML failed", p)
        check("# GPU health: not sampled (/nonexistent/libnvidia-ml.so.1 not found" in p.stdout, "no line saying NVML is missing", p)
        with read_h5(out) as f:
            check("gpu_health" not in f, "a run without NVML wrote /gpu_health")
        rep = run("report", out)
        check(rep.returncode == 0 and "GPU health" not in rep.stdout, "the report of a run without NVML has a GPU section", rep)
        off = os.path.join(d, "off.h5")
        p = mpirun(2, "run", *ONE[:-1], "0", "--out", off, env=fake_env(d, "gpus 2\nthrottle 0x8\n"))
        check(p.returncode == 0, "run with --gpu-sample-ms 0 failed", p)
        check("GPU health" not in p.stdout, "--gpu-sample-ms 0 still reports sampling", p)
        with read_h5(off) as f:
            check("gpu_health" not in f, "--gpu-sample-ms 0 still wrote /gpu_health")
        bad = os.path.join(d, "bad.h5")
        expect_bad_input(run("run", "--out", bad, "--gpu-sample-ms", "-5"), "--gpu-sample-ms")
        check(not os.path.exists(bad), "a bad input left an output file")


def test_doctor_reads_throttle_and_replays():
    """doctor reads the GPUs with run's NVML reader: a power-capped GPU and PCIe replays WARN,
    naming the GPU; an uncorrected ECC error FAILs."""
    with TempDir() as d:
        p = run_doctor(fake_env(d, "gpus 2\nthrottle 0x4 gpu 1\nreplays 7 gpu 0\n"))
        c = gpu_check(p)
        check(c["status"] == "WARN", f"gpu.health {c['status']}: {c['reason']}", p)
        check("gpu1 throttled (sw_power_cap)" in c["reason"] and "gpu0 7 PCIe replays" in c["reason"], f"reason: {c['reason']}", p)
        c = gpu_check(run_doctor(fake_env(d, "gpus 1\necc_uncorrected 2\n")))
        check(c["status"] == "FAIL" and "2 uncorrected ECC errors" in c["reason"], f"ECC: {c['status']}: {c['reason']}")


def run_doctor(e):
    import subprocess  # noqa: PLC0415
    return subprocess.run([os.environ["MESHBENCH"], "doctor", "--format", "json"], env=e, capture_output=True, text=True, timeout=120)


def gpu_check(p):
    try:
        report = json.loads(p.stdout)
    except json.JSONDecodeError:
        fail("doctor --format json printed no JSON", p)
    for c in report["checks"]:
        if c["id"] == "gpu.health":
            return c
    fail("doctor has no gpu.health check", p)
    return None


if __name__ == "__main__":
    globals()["test_" + sys.argv[1]]()
