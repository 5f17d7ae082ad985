"""meshbench predict on 2 x p5.48xlarge, all_reduce, -b 8 -e 8G -f 2 as JSON: 31 rows (8 B to
8 GiB), the project's keys, busbw = algbw x 2(n-1)/n, and busbw rising with size.
Usage: predict_check.py MESHBENCH"""
import json
import subprocess
import sys

meshbench = sys.argv[1]
args = [meshbench, "predict", "--node-type", "p5.48xlarge", "--nodes", "2", "--op", "all_reduce",
        "-b", "8", "-e", "8G", "-f", "2", "--format", "json"]
p = subprocess.run(args, capture_output=True, text=True, timeout=50)
if p.returncode != 0 or p.stderr:
    sys.exit(f"predict failed ({p.returncode}): {p.stderr}")
data = json.loads(p.stdout)
rows = data["rows"]
errors = []
if len(rows) != 31:
    errors.append(f"{len(rows)} rows, not 31")
if [r["bytes"] for r in rows] != [8 << k for k in range(31)]:
    errors.append("sizes are not 8 B x 2^k up to 8 GiB")
header = data["header"]
if header["ranks"] != 16 or header["nodes"] != 2 or header["op"] != "all_reduce":
    errors.append(f"header {header}")
for r in rows:
    if set(r) != {"bytes", "count", "time_us", "algbw_gbps", "busbw_gbps", "algorithm", "protocol"}:
        errors.append(f"keys {sorted(r)}")
        break
    if r["count"] != r["bytes"] // 4 or not r["time_us"] > 0 or not r["algorithm"]:
        errors.append(f"row {r}")
    if abs(r["busbw_gbps"] - r["algbw_gbps"] * 2 * 15 / 16) > 1e-9 * max(1.0, r["busbw_gbps"]):
        errors.append(f"busbw is not algbw x 2(n-1)/n at {r['bytes']}")
# busbw rises with size: never falls by more than 3% from one size to the next (a protocol or
# algorithm switch may shave a little), and the largest size is far above the smallest.
busbw = [r["busbw_gbps"] for r in rows]
for a, b, r in zip(busbw, busbw[1:], rows[1:]):
    if b < 0.97 * a:
        errors.append(f"busbw falls from {a:.3f} to {b:.3f} GB/s at {r['bytes']} B")
if not busbw[-1] > 100 * busbw[0]:
    errors.append(f"busbw at 8 GiB ({busbw[-1]:.3f}) is not far above at 8 B ({busbw[0]:.5f})")
if errors:
    sys.exit("; ".join(errors))
print(f"31 rows, busbw {busbw[0]:.5f} -> {busbw[-1]:.1f} GB/s")
