"""Offline planning: AWS's p5 file + node type x 64 nodes. Usage: topology_offline_check.py MESHBENCH DATA"""
import json
import subprocess
import sys

meshbench, data = sys.argv[1], sys.argv[2]
args = [meshbench, "topo", "--topology", f"{data}/nccl-topo/p5.48xl-topo.xml", "--node-type", "p5.48xlarge", "--nodes", "64"]

doc = json.loads(subprocess.run(args + ["--format", "json"], capture_output=True, text=True, check=True).stdout)
assert doc["node_count"] == 64 and doc["slot_count"] == 512, (doc["node_count"], doc["slot_count"])
assert len(doc["layouts"]) == 1 and doc["layouts"][0]["node_count"] == 64
node = doc["nodes"][63]
assert node["hostname"] == "p5.48xlarge-63" and node["first_slot"] == 504, node["hostname"]
assert len(node["slots"]) == 8 and len(node["nics"]) == 32
assert all(s["kind"] == "gpu" and len(s["rail"]) == 4 for s in node["slots"])
assert all(n["kind"] == "efa" and n["line_rate_gbit"] == 100 for n in node["nics"])
classes = doc["links"]["within_node"][0]["class"]
assert all(classes[i][j] == ("LOC" if i == j else "NVL") for i in range(8) for j in range(8))

text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
assert "64 identical nodes" in text and text.count("layout 0:") == 1, text[:400]
print("64 p5 nodes, 512 GPU slots, one layout")
