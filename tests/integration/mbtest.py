"""Shared helpers for meshbench's integration tests (run by CTest with Debian's python3)."""
import os
import subprocess
import sys
import tempfile
import time

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_mpi_yield_when_idle": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    # Keep Open MPI on shared memory and loopback TCP only: test machines may have odd interfaces.
    "OMPI_MCA_btl": "self,vader,tcp",
    "OMPI_MCA_btl_tcp_if_include": "lo",
    "OMPI_MCA_oob_tcp_if_include": "lo",
}


def env(**extra):
    e = dict(os.environ)
    e.update(MPI_ENV)
    e.update(extra)
    return e


def measuring_env(np):
    """env() for runs whose times are the result: without yield_when_idle while the ranks do
    not outnumber the cores, where yielding only adds noise."""
    e = env()
    if np <= (os.cpu_count() or 1):
        e.pop("OMPI_MCA_mpi_yield_when_idle")
    return e


def work_folder(keep, prefix):
    """(path, holder) for a measurement's run files: `keep` (made if missing, reused), or a
    scratch folder that goes when `holder` does."""
    if keep:
        os.makedirs(keep, exist_ok=True)
        return keep, None
    holder = tempfile.TemporaryDirectory(prefix=prefix)
    return holder.name, holder


def meshbench():
    return os.environ["MESHBENCH"]


def mpirun(np, *args, timeout=300, **kw):
    cmd = ["mpirun", "-np", str(np), meshbench(), *args]
    kw.setdefault("env", env())
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def run(*args, timeout=120):
    return subprocess.run([meshbench(), *args], env=env(), capture_output=True, text=True, timeout=timeout)


def fail(msg, proc=None):
    print("FAIL:", msg)
    if proc is not None:
        print("--- stdout ---\n" + proc.stdout[-6000:])
        print("--- stderr ---\n" + proc.stderr[-6000:])
    sys.exit(1)


def check(cond, msg, proc=None):
    if not cond:
        fail(msg, proc)


def expect_bad_input(proc, needle, launched=False):
    """Exit status 2, one line on stderr that names the problem, nothing on stdout. Under a
    launcher (`launched`), mpirun adds its own banner; only meshbench's lines are counted."""
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    if launched:
        lines = [l for l in lines if l.startswith("meshbench")]
    check(proc.returncode == 2, f"exit status {proc.returncode}, expected 2", proc)
    check(len(lines) == 1, f"expected one error line, got {len(lines)}", proc)
    check(needle.lower() in lines[0].lower(), f"error line does not mention '{needle}': {lines[0]}", proc)


def TempDir():  # noqa: N802 (the tests' `with TempDir() as d:` predates it)
    return tempfile.TemporaryDirectory(prefix="mbtest-", ignore_cleanup_errors=True)


def _ancestors(pid):
    """The parent, grandparent, ... of `pid`, up to init."""
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
        out.append(pid)
    return out


def rank_pids(rank, under, cmd_fragment="meshbench"):
    """PIDs of world rank `rank`'s processes that descend from process `under` (the test's
    mpirun): other jobs on the machine have a rank of that number too."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
            if cmd_fragment not in cmdline or "mpirun" in cmdline:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ and under in _ancestors(int(pid)):
            pids.append(int(pid))
    return pids


def wait_for(predicate, timeout, step=0.2):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def read_h5(path):
    import h5py  # noqa: PLC0415 - Debian's python3-h5py
    return h5py.File(path, "r")
