"""Edits of meshbench results files for the report and compare tests (Debian's python3-h5py):
a planted slowdown in one point, a foreign schema version, disjoint sizes."""
import shutil

import h5py
import numpy as np

KEY = ("mapping", "dim", "op", "timing", "concurrency", "bytes")


def _match(table, row):
    sel = np.ones(len(table), dtype=bool)
    for k in KEY:
        sel &= table[k] == row[k]
    return sel


def _variance_inflation(series):
    """1 + 2 * sum of the autocorrelations of the ranks up to the first non-positive one (the
    factor compare's within-run test widens its variance by; analysis/compare/regression_stats.hpp)."""
    x = np.argsort(np.argsort(series)).astype(float)
    x -= x.mean()
    c0 = (x * x).sum()
    if len(x) < 8 or c0 == 0:
        return 1.0
    total = 0.0
    for k in range(1, min(len(x) // 4, 500) + 1):
        rho = (x[:-k] * x[k:]).sum() / c0
        if rho <= 0:
            break
        total += rho
    return max(1.0, 1.0 + 2.0 * total)


def quietest_point(path, min_samples=20):
    """The per-iteration concurrent point where a change of its times is easiest to see: the
    largest sqrt(samples / autocorrelation inflation) / spread, the spread being the robust
    scale (1.4826 MAD) of the log times, among points with at least `min_samples` samples."""
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
        s = f["samples"][:]
    best, best_score = None, None
    for i, row in enumerate(m):
        if row["timing"] != b"per_iteration" or row["concurrency"] != b"concurrent":
            continue
        sel = s[_match(s, row)]
        t = sel[np.argsort(sel["iteration"])]["t_us"]
        if len(t) < min_samples:
            continue
        lt = np.log(t)
        spread = 1.4826 * np.median(np.abs(lt - np.median(lt)))
        score = np.sqrt(len(t) / _variance_inflation(t)) / max(spread, 1e-9)
        if best_score is None or score > best_score:
            best, best_score = i, score
    if best is None:
        raise SystemExit(f"no per-iteration point with {min_samples} samples in {path}")
    return best


def _slow_down(f, indices, factor):
    """Makes the points at `indices` of /measurements `factor` times slower in place: their
    times (bandwidths divided), their /samples and their /group_timings."""
    m = f["measurements"]
    rows = []
    for index in indices:
        row = m[index]
        for c in ("t_min_us", "t_median_us", "t_p90_us", "t_p99_us", "t_max_us", "t_mean_us"):
            row[c] *= factor
        for c in ("algbw_gbps", "busbw_gbps"):
            row[c] /= factor
        m[index] = row
        rows.append(row)
    for name, cols, inverse in (("samples", ("t_us",), ()), ("group_timings", ("t_median_us", "t_p90_us"), ("busbw_gbps",))):
        ds = f[name]
        data = ds[:]
        for row in rows:
            sel = _match(data, row)
            for c in cols:
                data[c][sel] *= factor
            for c in inverse:
                data[c][sel] /= factor
        ds[...] = data
    return [{k: (row[k].decode() if isinstance(row[k], bytes) else int(row[k])) for k in KEY} for row in rows]


def plant_slowdown(src, dst, factor=1.10, index=None):
    """Copies `src` to `dst` and makes one point `factor` times slower (by default the quietest
    one). Returns the point's key."""
    shutil.copyfile(src, dst)
    if index is None:
        index = quietest_point(src)
    with h5py.File(dst, "r+") as f:
        return _slow_down(f, [index], factor)[0]


def plant_op_slowdown(src, dst, factor, dim, op, timing="per_iteration"):
    """Copies `src` to `dst` and makes every point of one dimension's op (all mappings, all
    sizes) `factor` times slower: a collective-specific regression. Returns the points' keys."""
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        m = f["measurements"][:]
        idx = [i for i, r in enumerate(m) if r["dim"] == dim.encode() and r["op"] == op.encode() and r["timing"] == timing.encode()]
        return _slow_down(f, idx, factor)


def plant_op_size_slowdown(src, dst, factor, op, nbytes):
    """Copies `src` to `dst` and makes one op at one size `factor` times slower wherever it was
    measured (every dimension, mapping and timing mode): what a protocol or algorithm change at
    a size threshold does. Returns the points' keys."""
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        m = f["measurements"][:]
        idx = [i for i, r in enumerate(m) if r["op"] == op.encode() and int(r["bytes"]) == nbytes]
        return _slow_down(f, idx, factor)


def set_schema_version(src, dst, version):
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        f.attrs["schema_version"] = np.int64(version)


def shift_sizes(src, dst, delta=1):
    """A copy whose every size is off by `delta` bytes: no point in common with `src`."""
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        for name in ("measurements", "samples", "group_timings"):
            ds = f[name]
            data = ds[:]
            data["bytes"] += delta
            ds[...] = data


def _key_codes(points, rows):
    """One integer per row of each table naming its point (KEY's columns), equal across the two
    tables where the points are equal: a row's tuple of fields, read one by one, took most of a
    synthetic rerun's time (22,000 samples)."""
    point_codes = np.zeros(len(points), dtype=np.int64)
    row_codes = np.zeros(len(rows), dtype=np.int64)
    for k in KEY:
        values, inverse = np.unique(np.concatenate([points[k], rows[k]]), return_inverse=True)
        point_codes = point_codes * len(values) + inverse[:len(points)]
        row_codes = row_codes * len(values) + inverse[len(points):]
    return point_codes, row_codes


def _scale_points(f, factors):
    """Multiplies each point of /measurements by its own factor ({index: factor}) in place: its
    times, bandwidths, /samples, /group_timings and /round_medians."""
    m = f["measurements"][:]
    by_key = {}
    for index, factor in factors.items():
        row = m[index]
        for c in ("t_min_us", "t_median_us", "t_p90_us", "t_p99_us", "t_max_us", "t_mean_us"):
            row[c] *= factor
        for c in ("algbw_gbps", "busbw_gbps"):
            row[c] /= factor
        m[index] = row
        by_key[index] = factor
    f["measurements"][...] = m
    for name, cols, inverse in (("samples", ("t_us",), ()), ("group_timings", ("t_median_us", "t_p90_us"), ("busbw_gbps",)),
                                ("round_medians", ("t_median_us",), ())):
        if name not in f:
            continue
        data = f[name][:]
        point_codes, row_codes = _key_codes(m, data)
        factor_of_code = {int(point_codes[i]): factor for i, factor in by_key.items()}
        scale = np.array([factor_of_code.get(int(c), 1.0) for c in row_codes])
        for c in cols:
            data[c] *= scale
        for c in inverse:
            data[c] /= scale
        f[name][...] = data


def plant_noise(src, dst, point_sigma, seed, run_sigma=0.0, whole=1.0, only=None):
    """Copies `src` to `dst` as a synthetic rerun: every point times exp(point_sigma·Z_p) and the
    whole run times exp(run_sigma·Z) · `whole`, Z standard normal from numpy's seeded PCG64;
    `only` ({index: factor}) adds a planted slowdown to chosen points. Deterministic for a seed."""
    shutil.copyfile(src, dst)
    rng = np.random.default_rng(seed)
    with h5py.File(dst, "r+") as f:
        n = len(f["measurements"])
        shift = np.exp(run_sigma * rng.standard_normal()) * whole
        factors = {i: float(shift * np.exp(point_sigma * z)) for i, z in enumerate(rng.standard_normal(n))}
        for i, extra in (only or {}).items():
            factors[i] *= extra
        _scale_points(f, factors)


def op_size_indices(path, op, nbytes):
    """The /measurements indices of one op at one size (every dimension, mapping and timing)."""
    with h5py.File(path, "r") as f:
        m = f["measurements"][:]
    return [i for i, r in enumerate(m) if r["op"] == op.encode() and int(r["bytes"]) == nbytes]


def set_layout(src, dst, **sizes):
    """A copy whose recorded layout says other sizes (tp=4, ...): another configuration."""
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        for k, v in sizes.items():
            f["layout"].attrs[k] = np.int64(v)


def set_slot_count(src, dst, node, count):
    """A copy whose recorded topology gives node `node` another slot count: another machine."""
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        ds = f["topology/nodes/slot_count"]
        data = ds[:]
        data[node] = count
        ds[...] = data


def set_started_at(path, started_at):
    """Rewrites the run's recorded start time (history orders runs by it)."""
    with h5py.File(path, "r+") as f:
        f.attrs["started_at"] = started_at


def set_version(path, name, value):
    """Sets one recorded version (/provenance/versions), adding it when absent."""
    with h5py.File(path, "r+") as f:
        ds = f["provenance/versions"]
        rows = [(r["name"], r["value"]) for r in ds[:]]
        dtype = ds.dtype
        rows = [(n, value.encode() if n == name.encode() else v) for n, v in rows]
        if all(n != name.encode() for n, _ in rows):
            rows.append((name.encode(), value.encode()))
        del f["provenance/versions"]
        f["provenance"].create_dataset("versions", data=np.array(rows, dtype=dtype))
