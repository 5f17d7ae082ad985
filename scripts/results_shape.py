#!/usr/bin/python3
"""Prints what a results file holds apart from what timing decides, one line per fact, so that
two builds' files from the same run can be diffed (scripts/same_results.sh).

    scripts/results_shape.py FILE.h5

Kept: every group, dataset and attribute name, each dataset's type and (except where the
number of timed iterations decides it) its shape, the measured points' keys, the mappings,
their groups and predictions, the topology. Left out: times, bandwidths, iteration counts,
timestamps, the environment's values and the command line.
"""
import sys

import h5py
import numpy as np

TIMED = {"t_min_us", "t_median_us", "t_p90_us", "t_p99_us", "t_max_us", "t_mean_us", "algbw_gbps",
         "busbw_gbps", "iters", "warmup", "slowest_group", "t_us", "iteration"}
COUNTED_BY_TIMING = {"samples", "round_medians"}
UNSTABLE_ATTRS = {"started_at", "finished_at", "command_line", "doctor_json", "order_seed", "json", "raw_xml"}


def value(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    if isinstance(v, np.ndarray):
        return "[" + ",".join(value(x) for x in v.ravel()) + "]"
    return str(v)


def main(path):
    out = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            for a in sorted(obj.attrs):
                shown = "-" if a in UNSTABLE_ATTRS else value(obj.attrs[a])
                out.append(f"attr {name}@{a} = {shown}")
            if not isinstance(obj, h5py.Dataset):
                out.append(f"group {name}")
                return
            base = name.split("/")[-1]
            shape = "(n)" if base in COUNTED_BY_TIMING else str(obj.shape)
            out.append(f"dataset {name} {shape} {obj.dtype}")
            if base in COUNTED_BY_TIMING or name.startswith("provenance/"):
                return
            data = obj[()]
            if obj.dtype.names:
                keep = [c for c in obj.dtype.names if c not in TIMED]
                rows = sorted(" ".join(f"{c}={value(r[c])}" for c in keep) for r in np.atleast_1d(data))
                out.extend(f"row {name} {r}" for r in rows)
            elif name != "plan_json" and name != "run/hosts":
                out.append(f"values {name} {value(np.asarray(data))}")
        visit("/", f)
        f.visititems(visit)
    attrs_root = [l for l in out if l.startswith("attr /@")]
    print("\n".join(sorted(set(out) - set(attrs_root)) + sorted(attrs_root)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
