#!/usr/bin/env python3
"""Writes the nccl-tests fixture logs of this folder (README.md).

No GPU here, so the logs are printed the way nccl-tests' own printing code prints them: the
format strings of its writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble,
writeBenchmarkLineBody, writePerIterReport and writeResultFooter (text), and its -J writer
(JSON, file version 3), as of nccl-tests 2.19.6; the legacy fixture uses the older formats
(no root column, an error column, device lines without Group). Times come from a simple
latency-bandwidth model with seeded noise, so the numbers are plausible and reproducible.
Run it from this folder: python3 make_nccl_tests_logs.py
"""
import json
import os
import random


def float_str(value, width):
    # getFloatStr: the most decimals that fit the width.
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, value)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


OPS = {  # binary: (bus factor, element bytes per count, size from count)
    "all_reduce_perf": lambda n: 2.0 * (n - 1) / n,
    "all_gather_perf": lambda n: (n - 1) / n,
    "reduce_scatter_perf": lambda n: (n - 1) / n,
    "alltoall_perf": lambda n: (n - 1) / n,
    "broadcast_perf": lambda n: 1.0,
}


def sizes(lo, hi):
    s = lo
    while s <= hi:
        yield s
        s *= 2


def model_time(binary, size, n, rng, slow_from=None, slow_factor=1.0):
    bus = OPS[binary](n)
    t = 22.0 + size * bus / 45e3  # 22 us latency, 45 GB/s bus bandwidth
    if slow_from is not None and size >= slow_from:
        t *= slow_factor
    return t * (1.0 + rng.uniform(-0.02, 0.02))


def device_lines(hosts, per_host, legacy=False, pid0=41000):
    out = []
    rank = 0
    for h, host in enumerate(hosts):
        for d in range(per_host):
            bus = 0x18 + 0x10 * d
            if legacy:
                out.append("#   Rank %2d Pid %6d on %10s device %2d [0x%02x] NVIDIA A100-SXM4-40GB\n" % (rank, pid0 + h, host, d, bus))
            else:
                out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] NVIDIA H100 80GB HBM3\n"
                           % (rank, 0, pid0 + h, host, d, 0, bus, 0))
            rank += 1
    return out


def header_lines(per_iter=False, timestamps=False):
    ts_lbl = "timestamp" if timestamps else ""
    ts_pad = 19 if timestamps else 0
    ts_fmt = "%Y-%m-%d %H:%M:%S" if timestamps else ""
    out = ["#\n"]
    if per_iter:
        out.append("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                                in-place (+ per-iteration)\n" % ("", "", "", "", ""))
        out.append(("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s\n")
                   % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%",
                      "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", ts_pad, ts_lbl))
        out.append(("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s\n")
                   % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)",
                      "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", ts_pad, ts_fmt))
    else:
        out.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n" % ("", "", "", "", ""))
        out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n"
                   % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", ts_pad, ts_lbl))
        out.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n"
                   % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", ts_pad, ts_fmt))
    return out


def body(t, size, n, binary, check=True, wrong=0):
    alg = size / 1e3 / t
    bus = alg * OPS[binary](n)
    if check:
        return "  %7s  %6s  %6s  %6g" % (float_str(t, 7), float_str(alg, 6), float_str(bus, 6), wrong)
    return "  %7s  %6s  %6s    N/A" % (float_str(t, 7), float_str(alg, 6), float_str(bus, 6))


def run_text(binary, hosts, per_host, lo, hi, seed, threads=1, check=True, per_iter=False, timestamps=False, slow_from=None,
             slow_factor=1.0, redops=("sum",), nccl_info=True, cycles=1, nccl=(2, 28, 3)):
    rng = random.Random(seed)
    n = len(hosts) * per_host
    gpus = per_host // threads
    code = nccl[0] * 10000 + nccl[1] * 100 + nccl[2]
    out = ["# nccl-tests version 2.19.6 nccl-headers=%d nccl-library=%d\n" % (code, code),
           "# Collective test starting: %s\n" % binary,
           "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d unalign: %d\n"
           % (threads, gpus, lo, hi, 2, "factor", 5, 20, 1, 1 if check else 0, 0, 0)]
    if per_iter:
        out.append("# Per-Iteration Report: CUDA event timing; i_* uses max over process rows \n")
    out.append("#\n")
    out.append("# Using devices\n")
    out += device_lines(hosts, per_host)
    if nccl_info:
        out.append("%s:%d:%d [0] NCCL INFO NCCL version %d.%d.%d+cuda12.9\n" % ((hosts[0], 41000, 41000) + tuple(nccl)))
    out += header_lines(per_iter, timestamps)
    bws = []
    for redop in redops:
        for cycle in range(cycles):
            for size in sizes(lo, hi):
                count = size // 4
                out_size = size
                line = "%12li  %12li  %8s  %6s  %6s" % (out_size, count, "float", redop, "%6i" % -1)
                for in_place in (0, 1):
                    t = model_time(binary, size, n, rng, slow_from, slow_factor)
                    line += body(t, size, n, binary, check)
                    bws.append(size / 1e3 / t * OPS[binary](n))
                    if per_iter:
                        i_min, i_max, i_p99 = t * 0.93, t * 1.21, t * 1.18
                        line += "  %7s  %7s  %7s  %7s" % (float_str(i_min, 7), float_str(i_max, 7), float_str(i_p99, 7), float_str(4.2, 7))
                if timestamps:
                    line += "%21s" % ("2026-11-20 10:15:%02d" % (len(bws) // 2 % 60))
                out.append(line + "\n")
    out.append("# %-20s : %d %s\n" % ("Out of bounds values", 0, "OK"))
    out.append("# %-20s : %g %s\n" % ("Avg bus bandwidth", sum(bws) / len(bws), ""))
    out.append("#\n")
    out.append("# Collective test concluded: %s\n" % binary)
    out.append("#\n")
    out.append("\n")
    return "".join(out)


def legacy_text(hosts, per_host, lo, hi, seed):
    # nccl-tests 2.0 era: no version or "Collective test" lines, no root column, an error column.
    rng = random.Random(seed)
    n = len(hosts) * per_host
    out = ["# nThread 1 nGpus %d minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n" % (per_host, lo, hi),
           "#\n", "# Using devices\n"]
    out += device_lines(hosts, per_host, legacy=True)
    out.append("#\n")
    out.append("#                                                     out-of-place                       in-place          \n")
    out.append("#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n")
    out.append("#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n")
    for size in sizes(lo, hi):
        line = "%12li  %12li  %6s  %6s" % (size, size // 4, "float", "sum")
        for _ in (0, 1):
            t = model_time("all_reduce_perf", size, n, rng)
            alg = size / 1e3 / t
            line += "  %7s  %6.2f  %6.2f  %5.0le" % (float_str(t, 7), alg, alg * OPS["all_reduce_perf"](n), 0.0)
        out.append(line + "\n")
    out.append("# Out of bounds values : 0 OK\n")
    out.append("# Avg bus bandwidth    : 10.2 \n")
    out.append("#\n")
    return "".join(out)


def run_json(binary, hosts, per_host, lo, hi, seed):
    rng = random.Random(seed)
    n = len(hosts) * per_host
    devices = []
    rank = 0
    for h, host in enumerate(hosts):
        for d in range(per_host):
            devices.append({"rank": rank, "group": 0, "pid": 41000 + h, "hostname": host, "device": d,
                            "device_hex": "%04x:%02x:%02x" % (0, 0x18 + 0x10 * d, 0), "device_info": "NVIDIA H100 80GB HBM3"})
            rank += 1
    results = []
    for size in sizes(lo, hi):
        r = {"size": size, "count": size // 4, "type": "float", "redop": "sum", "root": "%6i" % -1}
        for key in ("out_of_place", "in_place"):
            t = model_time(binary, size, n, rng)
            alg = size / 1e3 / t
            r[key] = {"time": round(t, 6), "alg_bw": round(alg, 6), "bus_bw": round(alg * OPS[binary](n), 6), "nwrong": 0.0}
        r["actual_iterations"] = 20
        r["experiment_name"] = ""
        results.append(r)
    doc = {"version": 3, "start_time": "2026-11-20 10:15:00",
           "args": ["./build/" + binary, "-b", str(lo), "-e", str(hi), "-f", "2", "-g", str(per_host), "-J", "run.json"],
           "env": ["NCCL_DEBUG=INFO", "NCCL_SOCKET_IFNAME=eth0", "FI_PROVIDER=efa", "AWS_SECRET_ACCESS_KEY=not-to-be-kept", "HOME=/root"],
           "nccl_version": 22803,
           "config": {"nthreads": 1, "ngpus": per_host, "minimum_bytes": lo, "maximum_bytes": hi, "step_factor": 2, "warmup_iters": 5,
                      "iterations": 20, "aggregated_iterations": 1, "validation": 1, "graph": 0, "blocking_collectives": "false",
                      "per_iter_timing": "false", "per_iter_skip": 0, "parallel_init": "false", "devices": devices},
           "results": results,
           "out_of_bounds": {"count": 0, "okay": "true"},
           "average_bus_bandwidth": {"bandwidth": 10.5, "okay": "unchecked"},
           "errors": [], "end_time": "2026-11-20 10:15:09"}
    return json.dumps(doc, separators=(",", ":"))


def write(name, text):
    os.makedirs(os.path.dirname("nccl-tests/" + name), exist_ok=True)
    with open("nccl-tests/" + name, "w") as f:
        f.write(text)


HOSTS = ["gpu-a1", "gpu-a2"]
MIB = 1 << 20
write("all_reduce_perf.log", run_text("all_reduce_perf", HOSTS, 4, 8, 128 * MIB, seed=1))
write("all_gather_perf.log", run_text("all_gather_perf", HOSTS, 4, 64, 128 * MIB, seed=2))
# The same cluster after an NCCL upgrade: all-reduce four times slower from 1 MiB up, all-gather as before.
write("all_reduce_perf.slow.log", run_text("all_reduce_perf", HOSTS, 4, 8, 128 * MIB, seed=3, slow_from=MIB, slow_factor=4.0, nccl=(2, 28, 9)))
# Eight days of the same cluster, for history: four as usual, then NCCL 2.28.9 and all-reduce slow from 1 MiB up.
for day in range(1, 9):
    write("history/all_reduce_perf.day%d.log" % day,
          run_text("all_reduce_perf", HOSTS, 4, 64 * 1024, 128 * MIB, seed=100 + day, slow_from=MIB if day > 4 else None, slow_factor=4.0,
                   nccl=(2, 28, 9) if day > 4 else (2, 28, 3)))
write("all_gather_perf.rerun.log", run_text("all_gather_perf", HOSTS, 4, 64, 128 * MIB, seed=4, nccl=(2, 28, 9)))
write("no_check.log", run_text("all_reduce_perf", HOSTS, 4, 8, 4096, seed=5, check=False))
write("threads.log", run_text("reduce_scatter_perf", ["gpu-a1"], 8, 1024, 1 * MIB, seed=6, threads=2))
write("per_iteration.log", run_text("alltoall_perf", HOSTS, 4, 1024, 65536, seed=7, per_iter=True, timestamps=True))
write("appended.log", run_text("all_reduce_perf", HOSTS, 4, 8, 8192, seed=8) + run_text("all_reduce_perf", HOSTS, 4, 8, 8192, seed=9)
      + run_text("all_gather_perf", HOSTS, 4, 64, 8192, seed=10))
write("cycles.log", run_text("all_gather_perf", HOSTS, 4, 64, 1024, seed=19, cycles=3))  # -N 3: each size printed three times
write("all_reduce_perf.legacy.log", legacy_text(["node01", "node02"], 8, 8, 1 * MIB, seed=11))
write("all_reduce.json", run_json("all_reduce_perf", HOSTS, 4, 8, 1 * MIB, seed=12))
# Refusals.
write("bad_broadcast.log", run_text("broadcast_perf", HOSTS, 4, 8, 4096, seed=13))
write("bad_two_redops.log", run_text("all_reduce_perf", HOSTS, 4, 8, 64, seed=14, redops=("sum", "prod")))
write("bad_other_shape.log", run_text("all_reduce_perf", HOSTS, 4, 8, 64, seed=15) + run_text("all_reduce_perf", ["gpu-a1"], 4, 8, 64, seed=16))
truncated = run_text("all_reduce_perf", HOSTS, 4, 8, 4096, seed=17).splitlines(True)
row = truncated[20]
truncated[20] = row[: len(row) // 2] + "\n"  # a row cut in the middle, as a killed job leaves it
write("bad_cut_row.log", "".join(truncated))
write("bad_cut.json", run_json("all_reduce_perf", HOSTS, 4, 8, 4096, seed=18)[:900])
