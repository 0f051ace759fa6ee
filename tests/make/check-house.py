#!/usr/bin/env python3
"""check-house.py - the grader's folders keep to the floors ARCHITECTURE.md draws.

Reads the floor table of ARCHITECTURE.md (| floor | `folder/`, ... | ... |) and
every #include "..." of grader/ (the folders on the floors: the pipeline's, and
the programs beside it, batch/, jail/, bench/, device/), and fails where
  - a file includes a folder on its own floor or above (other than its own),
  - the PTX machine (grader/ptx/, its tests aside) includes anything outside it,
  - files include each other in a circle (a .c and its .h count as one file),
  - the folders' includes stack up more floors than the table has.
  - a folder of grader/ holding C (.c, .h, .cu) is on no floor.
Prints the counts it measured. Usage: check-house.py [REPO] (default: .)
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def floor_table():
    text = open(os.path.join(ROOT, "ARCHITECTURE.md"), encoding="utf-8").read()
    floors = {}
    for m in re.finditer(r"^\|\s*(\d+)\s*\|([^|]*)\|", text, re.M):
        for folder in re.findall(r"`([a-z_]+)/`", m.group(2)):
            floors[folder] = int(m.group(1))
    if not floors:
        sys.exit("check-house: no floor table in ARCHITECTURE.md (rows '| N | `folder/` |')")
    return floors


def folder_of(path):
    """The floor folder a repository path lies in ('common' for common/), or None."""
    rel = os.path.relpath(path, ROOT).split(os.sep)
    if rel[0] == "common":
        return "common"
    if rel[0] == "grader" and len(rel) > 2:
        return rel[1]
    return None


def sources(floors):
    for folder in floors:
        base = os.path.join(ROOT, "common" if folder == "common" else os.path.join("grader", folder))
        for dirpath, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d != "tests"]
            for f in files:
                if f.endswith((".c", ".h", ".cu")):
                    yield os.path.join(dirpath, f)


def resolve(src, name):
    for base in (os.path.dirname(src), os.path.join(ROOT, "grader"), os.path.join(ROOT, "common")):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(p):
            return p
    return None


def unit(path):
    return os.path.splitext(path)[0]


def find_circle(edges):
    """One circle of the unit graph as a list, or None (iterative DFS)."""
    colour, parent = {}, {}
    for start in edges:
        if start in colour:
            continue
        stack = [(start, iter(edges[start]))]
        colour[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
            elif colour.get(nxt) == 1:
                cyc = [nxt] + [n for n, _ in stack[[n for n, _ in stack].index(nxt) + 1:]]
                return cyc + [nxt]
            elif nxt not in colour:
                colour[nxt] = 1
                parent[nxt] = node
                stack.append((nxt, iter(edges.get(nxt, ()))))
    return None


def main():
    floors = floor_table()
    problems, unit_edges, folder_edges, n_files, n_includes = [], {}, {}, 0, 0
    for src in sorted(set(sources(floors))):
        n_files += 1
        here = folder_of(src)
        text = open(src, encoding="utf-8", errors="replace").read()
        for name in INCLUDE.findall(text):
            target = resolve(src, name)
            if target is None:
                continue  # a generated or system header
            n_includes += 1
            there = folder_of(target)
            rel = os.path.relpath(src, ROOT)
            if here == "ptx" and there != "ptx":
                problems.append(f"{rel}: includes {name}: the PTX machine includes nothing of the grader")
            elif there is None or there not in floors:
                problems.append(f"{rel}: includes {name}, in no folder of the floor table")
            elif there != here and floors[there] >= floors[here]:
                problems.append(f"{rel} (floor {floors[here]}) includes {name} ({there}/, floor "
                                f"{floors[there]}): a stage includes only the floors below it")
            if unit(target) != unit(src):
                unit_edges.setdefault(unit(src), set()).add(unit(target))
            if there and there != here:
                folder_edges.setdefault(here, set()).add(there)
    for folder in sorted(os.listdir(os.path.join(ROOT, "grader"))):
        base = os.path.join(ROOT, "grader", folder)
        if folder in floors or not os.path.isdir(base):
            continue
        holds_c = any(f.endswith((".c", ".h", ".cu")) for dirpath, dirs, files in os.walk(base)
                      if "tests" not in os.path.relpath(dirpath, base).split(os.sep) for f in files)
        if holds_c:
            problems.append(f"grader/{folder}/ holds C but is on no floor of ARCHITECTURE.md's table")
    circle = find_circle(unit_edges)
    if circle:
        problems.append("files include each other in a circle: " +
                        " -> ".join(os.path.relpath(u, ROOT) for u in circle))
    # floors measured: the longest chain of folder includes, counted in folders
    depth = {}

    def height(f, seen=()):
        if f in depth:
            return depth[f]
        if f in seen:
            return 0  # a folder circle is reported through its files' circle or floors
        depth[f] = 1 + max((height(g, seen + (f,)) for g in folder_edges.get(f, ())), default=0)
        return depth[f]

    stacked = max(height(f) for f in floors)
    if stacked > max(floors.values()):
        problems.append(f"the folders' includes stack {stacked} floors; the table has {max(floors.values())}")
    for p in problems:
        print("check-house: " + p)
    print(f"check-house: {n_files} files, {n_includes} includes between them, {len(floors)} folders "
          f"on {stacked} floors, {'a circle' if circle else 'no circle'}, "
          f"{len(problems)} problem{'s' if len(problems) != 1 else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
