#!/usr/bin/env python3
"""Figures about the code itself, for architecture reviews (docs/architecture.md).

    scripts/code_metrics.py [--build BUILD] [--top N]

Prints the lines of C++ per module folder, the N longest functions (a brace-matching scan of
the sources, not a compiler: good enough to rank function lengths), how many files and places
name one op (reduce_scatter), and, where BUILD has a CMake cache, which meshbench library
links which (from `cmake --graphviz`).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ["common", "topology", "mapping", "bench", "results", "analysis", "slurm", "app"]
SKIP = {"build", ".git", "tests"}


def sources(exts=(".cpp", ".hpp")):
    for top in MODULES:
        for dirpath, dirnames, files in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d not in SKIP and not d.startswith("build")]
            for f in files:
                if f.endswith(exts):
                    yield os.path.join(dirpath, f)


def strip_comments_and_strings(text):
    # Keeps newlines so that line numbers survive.
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


SCOPE = re.compile(r"\b(namespace|struct|class|union|enum)\b[^()]*$|extern\s*$")
NAME = re.compile(r"([A-Za-z_][\w:~<>]*)\s*\($")


def functions(path):
    text = strip_comments_and_strings(open(path, encoding="utf-8", errors="replace").read())
    stack = []  # per open brace: None (scope) or (name, start_line)
    last = 0
    for i, c in enumerate(text):
        if c in ";}" or c == "{":
            if c == "{":
                head = text[last:i]
                inside_function = any(s is not None for s in stack)
                if inside_function or SCOPE.search(head.strip()) or "(" not in head or "=" in head.split("(")[0]:
                    stack.append(None if not inside_function else ("", 0))
                else:
                    before = head[: head.find("(") + 1].rstrip()
                    m = NAME.search(before)
                    name = m.group(1) if m else "?"
                    stack.append((name, text.count("\n", 0, i) + 1 - head.strip().count("\n")))
            elif c == "}" and stack:
                top = stack.pop()
                if top and top[0] and not any(s is not None for s in stack):
                    end = text.count("\n", 0, i) + 1
                    yield top[0], top[1], end - top[1] + 1
            last = i + 1


def ctags_long_functions(limit):
    """Functions (not lambdas) longer than `limit` lines, from the first line to the closing brace
    as Universal Ctags records them (its `end:` field), in every tracked C++ file outside tests/.
    None where ctags is missing or is not Universal Ctags (Debian: universal-ctags)."""
    try:
        files = subprocess.run(["git", "ls-files", "*.cpp", "*.hpp"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
        files = [f for f in files if not f.startswith("tests/")]
        tags = subprocess.run(["ctags", "--c++-kinds=f", "--fields=+ne", "-f", "-", *files], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    out = []
    for line in tags.splitlines():
        fields = line.split("\t")
        if fields[0].startswith("__anon"):
            continue
        extra = dict(f.split(":", 1) for f in fields[3:] if ":" in f)
        if "line" in extra and "end" in extra:
            length = int(extra["end"]) - int(extra["line"]) + 1
            if length > limit:
                out.append((length, fields[0], fields[1]))
    return sorted(out, reverse=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()

    print("lines of C++ per module folder (tests excluded)")
    total = 0
    for top in MODULES:
        lines = sum(sum(1 for _ in open(p, encoding="utf-8", errors="replace")) for p in sources() if os.path.relpath(p, ROOT).split(os.sep)[0] == top)
        total += lines
        print(f"  {top:10s} {lines:6d}")
    print(f"  {'total':10s} {total:6d}")

    found = []
    for p in sources((".cpp", ".hpp")):
        for name, start, length in functions(p):
            found.append((length, name, os.path.relpath(p, ROOT), start))
    found.sort(reverse=True)
    print(f"\nthe {args.top} longest functions (lines, signature to closing brace)")
    for length, name, rel, start in found[: args.top]:
        print(f"  {length:4d}  {name}  {rel}:{start}")

    long = ctags_long_functions(80)
    if long is None:
        print("\nfunctions over 80 lines: needs Universal Ctags (universal-ctags)")
    else:
        print(f"\nfunctions over 80 lines outside tests/ (Universal Ctags' end lines): {len(long)}")
        for length, name, rel in long:
            print(f"  {length:4d}  {name}  {rel}")

    op = "reduce_scatter"
    places, files = 0, set()
    for p in list(sources((".cpp", ".hpp", ".in"))) + [os.path.join(ROOT, "analysis/report/plots/plots.py"), os.path.join(ROOT, "analysis/plots/plots.py")]:
        if not os.path.exists(p):
            continue
        n = len(re.findall(r"\b" + op + r"\b", open(p, encoding="utf-8", errors="replace").read()))
        if n:
            places += n
            files.add(os.path.relpath(p, ROOT))
    print(f"\nplaces naming one op ({op}) outside tests: {places} in {len(files)} files")
    for f in sorted(files):
        print(f"  {f}")

    if os.path.exists(os.path.join(args.build, "CMakeCache.txt")):
        with tempfile.TemporaryDirectory() as tmp:
            dot = os.path.join(tmp, "g.dot")
            subprocess.run(["cmake", f"--graphviz={dot}", "."], cwd=args.build, check=True, stdout=subprocess.DEVNULL)
            text = open(dot).read()
        labels = dict(re.findall(r'"(node\d+)" \[ label = "([^"]+)"', text))
        edges = {}
        for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
            la, lb = labels.get(a, a), labels.get(b, b)
            if la.startswith("meshbench_") and lb.startswith("meshbench_") and lb != "meshbench_warnings":
                edges.setdefault(la, set()).add(lb)
        print("\nwhich meshbench library links which (direct)")
        for lib in sorted(l for l in set(labels.values()) if l.startswith("meshbench_") and l != "meshbench_warnings"):
            if lib.startswith("meshbench_fuzz") or lib == "meshbench":
                continue
            print(f"  {lib:22s} -> {', '.join(sorted(edges.get(lib, []))) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
