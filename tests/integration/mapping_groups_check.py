"""meshbench groups through the CLI: JSON keys and lists for Megatron's worked example
(Megatron-Core's docstring example, W=16 TP2 PP2 EP2, order tp-cp-ep-dp-pp) and for
--use-tp-pp-dp-mapping's order with ETP1 (lists derived by hand from RankGenerator's
algorithm), and the text form. Usage: mapping_groups_check.py MESHBENCH"""
import json
import subprocess
import sys

meshbench = sys.argv[1]
problems = []


def groups(*args, fmt="json"):
    p = subprocess.run([meshbench, "groups", *args, "--format", fmt], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        sys.exit(f"groups {args} failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout) if fmt == "json" else p.stdout


pairs = [[i, i + 1] for i in range(0, 16, 2)]
g = groups("--world", "16", "--tp", "2", "--pp", "2", "--ep", "2")
expected = {
    "tp": pairs,
    "cp": [[i] for i in range(16)],
    "dp": [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]],
    "pp": [[i, i + 8] for i in range(8)],
    "ep": [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9, 11], [12, 14], [13, 15]],
    "etp": pairs,
    "edp": [[0, 4], [1, 5], [2, 6], [3, 7], [8, 12], [9, 13], [10, 14], [11, 15]],
}
if sorted(g) != sorted(expected):
    problems.append(f"keys {sorted(g)}, want {sorted(expected)}")
problems += [f"worked example {k}: {g.get(k)} != {v}" for k, v in expected.items() if g.get(k) != v]

# Order tp-cp-ep-pp-dp, ETP1 EP2 (ETP·EP = TP·CP): PP stride 2, DP stride 4, EP = TP pairs.
g = groups("--world", "16", "--tp", "2", "--pp", "2", "--ep", "2", "--etp", "1", "--order", "tp-cp-ep-pp-dp")
want = {
    "pp": [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9, 11], [12, 14], [13, 15]],
    "dp": [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
    "ep": pairs,
    "edp": [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
}
problems += [f"tp-pp-dp order {k}: {g.get(k)} != {v}" for k, v in want.items() if g.get(k) != v]

text = groups("--world", "16", "--tp", "2", "--pp", "2", "--ep", "2", fmt="text")
for words in ["TP2", "DP4", "EDP2", "tp  (8 groups of 2): [0 1] [2 3]", "pp  (8 groups of 2): [0 8] [1 9]"]:
    if words not in text:
        problems.append(f"text lacks {words!r}:\n{text}")

if problems:
    sys.exit("\n".join(problems))
print("groups: Megatron lists match")
