"""`meshbench run` skips points whose buffers do not fit in device memory: said up front, each
recorded as a failure, the rest measured. The MPI backend sets no limit, so the test gives one
(--test-device-memory) as the NCCL backend's free-memory figure would."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mbtest import TempDir, check, mpirun, read_h5  # noqa: E402


def test_oversized_points_skipped():
    with TempDir() as d:
        out = os.path.join(d, "run.h5")
        # all_reduce on 2 ranks: 1 KiB needs 2 KiB per rank (send + receive), 1 MiB needs 2 MiB.
        p = mpirun(2, "run", "--tp", "2", "--ops", "all_reduce", "--sizes", "1K,1M", "--timing", "batched", "--budget", "0.1",
                   "--batches", "2", "--no-doctor", "--test-device-memory", "64K", "--out", out)
        check(p.returncode == 0, "run failed", p)
        check("1 point size(s) will not fit in device memory (64 KiB per rank" in p.stdout, "no up-front note", p)
        check("tp all_reduce 1 MiB needs 2 MiB" in p.stdout, "the note does not name the size", p)
        before = p.stdout.index("will not fit")
        check(before < p.stdout.index("busbw"), "the note did not come before the measurements", p)
        with read_h5(out) as f:
            m = f["measurements"][:]
            sizes = sorted({int(x) for x in m["bytes"]})
            check(sizes == [1024], f"measured sizes {sizes}, expected only 1 KiB")
            failures = f["failures"][:]
            check(len(failures) >= 1, "no failure recorded for the skipped point")
            msg = failures[0]["message"].decode()
            check(int(failures[0]["bytes"]) == 1 << 20 and "2 MiB of device memory" in msg and "not measured" in msg,
                  f"unexpected failure record: {failures[0]}")
            check(f.attrs["status"] == "complete", "a skipped point should not fail the run")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    print("PASS", sys.argv[1])
