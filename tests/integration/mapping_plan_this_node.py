"""meshbench plan without topology options plans for this node alone (here: CPU slots).
Usage: mapping_plan_this_node.py MESHBENCH"""
import json
import subprocess
import sys

meshbench = sys.argv[1]
p = subprocess.run([meshbench, "plan", "--cpu-slots", "4", "--tp", "2", "--format", "json"], capture_output=True, text=True, timeout=50)
if p.returncode != 0:
    sys.exit(f"plan exited {p.returncode}: {p.stderr}")
doc = json.loads(p.stdout)
problems = []
if doc["topology"]["nodes"] != 1:
    problems.append(f"{doc['topology']['nodes']} nodes, want 1")
if doc["layout"]["world"] != doc["topology"]["slots"]:
    problems.append(f"world {doc['layout']['world']} != slots {doc['topology']['slots']}")
if not doc["mappings"] or any(m["predicted"]["tp"]["crosses_nodes"] for m in doc["mappings"]):
    problems.append("on one node no group can cross nodes")
if problems:
    sys.exit("\n".join(problems))
print(f"plan for this node: {doc['topology']['slots']} {doc['topology']['slot_kind']} slots, {len(doc['mappings'])} mappings")
