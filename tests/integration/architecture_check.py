"""The drawing and the table of docs/architecture.md ("Modules and their arrows") against the
build: every meshbench library the build defines is in the table, in the folder the table names,
linking exactly the meshbench libraries the table lists (direct links, from `cmake --graphviz`),
and every arrow of the drawing is one of those links.
Usage: architecture_check.py SOURCE_DIR BUILD_DIR"""
import os
import re
import subprocess
import sys
import tempfile

source, build = sys.argv[1], sys.argv[2]
doc = open(os.path.join(source, "docs", "architecture.md")).read()
section = doc.split("## Modules and their arrows", 1)[1].split("\n## ", 1)[0]
problems = []

# The build's direct links between meshbench libraries.
with tempfile.TemporaryDirectory() as tmp:
    dot = os.path.join(tmp, "graph.dot")
    subprocess.run(["cmake", f"--graphviz={dot}", "."], cwd=build, check=True, stdout=subprocess.DEVNULL)
    text = open(dot).read()
labels = dict(re.findall(r'"(node\d+)" \[ label = "([^"]+)"', text))
HELPERS = {"meshbench_warnings", "meshbench_test_code", "meshbench_pch_lib", "meshbench_pch_test", "meshbench_unit_tests"}


def ours(name):
    return name.startswith("meshbench_") and name not in HELPERS and not name.startswith("meshbench_fuzz")


built = {l for l in labels.values() if ours(l)}
links = {lib: set() for lib in built}
for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
    la, lb = labels.get(a, a), labels.get(b, b)
    if la in built and ours(lb):
        links[la].add(lb)

# The table: library, folder, what it holds, links (meshbench libraries by short name).
table = {}
for row in re.findall(r"^\| `(meshbench_\w+)` \| `([^`]+)` \| .* \| ([^|]*) \|$", section, re.M):
    lib, folder, linked = row
    names = {w.strip() for w in re.sub(r"\([^)]*\)", "", linked).split(",")}
    # Other names in the column are outside dependencies (MPI, HDF5, hwloc, ...).
    table[lib] = (folder, {f"meshbench_{n}" for n in names if f"meshbench_{n}" in built})
if not table:
    sys.exit("no library table found in docs/architecture.md")
for lib in sorted(built - set(table)):
    problems.append(f"{lib} is built but not in the table")
for lib in sorted(set(table) - built):
    problems.append(f"{lib} is in the table but not built")
for lib, (folder, listed) in sorted(table.items()):
    if not os.path.isdir(os.path.join(source, folder)):
        problems.append(f"{lib}: folder {folder} does not exist")
    if lib in built and listed != links[lib]:
        extra, missing = sorted(listed - links[lib]), sorted(links[lib] - listed)
        problems.append(f"{lib}: the table lists {extra} that it does not link" if extra else
                        f"{lib}: links {missing} that the table does not list")

# The drawing: chains like "a ← b ← c", "x, y ← z", "a ← b → c, d"; "b → c" means b links c.
drawing = section.split("```", 2)[1]
arrows = 0
for line in drawing.splitlines()[1:]:
    for column in re.split(r"\s{3,}", line.strip()):
        column = re.sub(r"\([^)]*\)", "", column.split(";")[0])
        parts = re.split(r"\s*([←→])\s*", column.strip())
        groups = [[n.strip() for n in p.split(",") if n.strip()] for p in parts[0::2]]
        for i, arrow in enumerate(parts[1::2]):
            left, right = groups[i], groups[i + 1]
            pairs = [(r, l) for r in right for l in left] if arrow == "←" else [(l, r) for l in left for r in right]
            for a, b in pairs:
                la, lb = f"meshbench_{a}", f"meshbench_{b}"
                if la not in built or lb not in built:
                    continue  # the binary, the emulator, "everything"
                arrows += 1
                if lb not in links[la]:
                    problems.append(f"the drawing says {a} → {b}, but {la} does not link {lb}")
if arrows < 20:
    problems.append(f"only {arrows} arrows between libraries read from the drawing")
if problems:
    sys.exit("\n".join(problems))
print(f"{len(built)} libraries and {arrows} arrows of the drawing match the build")
