"""mpirun -np N meshbench topo --format json: one node, N CPU slots, rank r on slot r,
printed once (by rank 0). Usage: topology_mpirun_check.py MPIRUN MESHBENCH N"""
import json
import subprocess
import sys

mpirun, meshbench, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])


def run(*args):
    cmd = [mpirun, "-np", str(ranks), "--oversubscribe", meshbench, "topo", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p.stdout


doc = json.loads(run("--format", "json"))  # fails if more than one rank printed
assert doc["node_count"] == 1, doc["node_count"]
assert len(doc["nodes"]) == 1
slots = doc["nodes"][0]["slots"]
assert len(slots) == ranks, f"{len(slots)} slots, want {ranks}"
for i, slot in enumerate(slots):
    assert slot["index"] == i and slot["kind"] == "cpu", slot
    assert isinstance(slot["numa"], int) and "pci" in slot, slot
assert doc["slot_of_rank"] == list(range(ranks)), doc["slot_of_rank"]
classes = doc["links"]["within_node"][0]["class"]
assert all(classes[i][i] == "LOC" for i in range(ranks)), classes
assert all(c in ("PHB", "SYS") for i, row in enumerate(classes) for j, c in enumerate(row) if i != j), classes

text = run()
assert text.count("cluster: 1 node") == 1, text
assert f"{ranks} slots" in text, text
print(f"one node, {ranks} CPU slots, ranks on slots {doc['slot_of_rank']}")
