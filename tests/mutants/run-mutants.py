#!/usr/bin/env python3
"""run-mutants.py - make check-mutants: the grader's own tests, mutation-tested.

Each row of tests/mutants/mutants.tsv is a one-line bug put into the code that
decides grades. Every one is applied, one at a time, in a scratch copy of this
tree and its build folder (built objects reused: only what the mutant touches
is compiled again), the tests it names are run there, and it must be KILLED:
a test must fail. The report names the test that killed each.

    python3 tests/mutants/run-mutants.py [--build build] [--only ID,...] [--keep]

Columns of mutants.tsv (tab-separated; '#' lines and blank lines are skipped):

    id       a name, unique
    file     the file mutated, from the top of the tree
    find     the exact text replaced: it must occur once in the file
    replace  what replaces it (in both: \n a newline, \t a tab, \\ a backslash)
    tests    the tests to run, in order, until one kills it (space-separated):
               unit:SUITE         make check-unit, that Check suite alone
               unit:SUITE:TEST    ... and TEST (a test function) must be among
                                  its failures: the test that names the property
               emulated:NAME,...  make check-emulated with CHECK_ONLY: those labs
                                  graded by emulation and judged (lab1-solution,
                                  lab1-skeleton, a planted variant), their hints
               batch              make check-batch, its discovery sections
               jail               make check-jail, its refusals (scan, assembler guard)
               make:TARGET        any make target (check-traces, check-cli, ...)
    breaks   what the mutant breaks, in words

A row that cannot be applied (its text not found, or found more than once), a
mutant that does not compile, a test that fails before any mutant is applied,
or a TEST that is not in its suite is an error, never a pass. Exit status: 0
every mutant killed, 1 one survived, 2 an error in the list or the set-up.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LIST = os.path.join(HERE, "mutants.tsv")
TIMEOUT = 300  # a test run longer than this is a hang the mutant caused

# What each kind of test needs built before it runs (a mutant that does not
# compile is found there, apart from the tests), given BUILD.
BUILT = {
    "unit": ["tests/unit-tests"],
    "emulated": ["smemlab-grade", "smemlab-record", "record/libcudart.so.13", "tests/expect"],
    "batch": ["smemlab-batch", "smemlab-build-jail"],
    "jail": ["smemlab-build-jail"],
}
BUILT["make"] = sorted({t for ts in BUILT.values() for t in ts})  # whatever the target needs


class ListError(Exception):
    pass


def fail_setup(msg):
    print(f"check-mutants: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_spec(spec, where):
    kind, _, rest = spec.partition(":")
    if kind == "unit":
        parts = rest.split(":")
        if not parts[0] or len(parts) > 2:
            raise ListError(f"{where}: '{spec}': unit:SUITE or unit:SUITE:TEST")
        return ("unit", parts[0], parts[1] if len(parts) == 2 else None)
    if kind == "emulated":
        names = [n for n in rest.split(",") if n]
        if not names:
            raise ListError(f"{where}: '{spec}': emulated:NAME[,NAME...]")
        return ("emulated", tuple(names), None)
    if kind in ("batch", "jail") and not rest:
        return (kind, None, None)
    if kind == "make" and rest:
        return ("make", rest, None)
    raise ListError(f"{where}: unknown test '{spec}'")


def spec_text(spec):
    kind, arg, test = spec
    if kind == "unit":
        return f"unit:{arg}" + (f":{test}" if test else "")
    if kind == "emulated":
        return "emulated:" + ",".join(arg)
    return kind if arg is None else f"{kind}:{arg}"


def unescape(text):
    """A find or replace column: \\n, \\t and \\\\ as in C; any other backslash is an error."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1:i + 2]
            if nxt not in ("n", "t", "\\"):
                raise ListError(f"'\\{nxt}' in '{text}': only \\n, \\t and \\\\ are escapes")
            out.append({"n": "\n", "t": "\t", "\\": "\\"}[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_list(path, top):
    """The rows of the list, each checked against the tree: a row that
    cannot be applied is an error here, before anything runs."""
    rows, ids, errors = [], set(), []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            where = f"{os.path.relpath(path, top)}:{n}"
            cols = line.split("\t")
            if cols[0] == "id":  # the header
                continue
            try:
                if len(cols) != 6:
                    raise ListError(f"{where}: {len(cols)} columns, not 6 (id, file, find, "
                                    "replace, tests, breaks)")
                mid, file, find, replace, tests, breaks = cols
                find, replace = unescape(find), unescape(replace)
                if mid in ids:
                    raise ListError(f"{where}: the id {mid} twice")
                ids.add(mid)
                if not find or find == replace:
                    raise ListError(f"{where} ({mid}): find is empty or equal to replace")
                full = os.path.join(top, file)
                if not os.path.isfile(full):
                    raise ListError(f"{where} ({mid}): no file {file}")
                with open(full, encoding="utf-8") as g:
                    count = g.read().count(find)
                if count != 1:
                    raise ListError(f"{where} ({mid}): '{find}' occurs {count} times in {file} "
                                    "(a mutant's text must occur exactly once)")
                specs = [parse_spec(s, f"{where} ({mid})") for s in tests.split()]
                if not specs:
                    raise ListError(f"{where} ({mid}): no tests named")
                rows.append({"id": mid, "file": file, "find": find, "replace": replace,
                             "specs": specs, "breaks": breaks})
            except ListError as e:
                errors.append(str(e))
    if errors:
        raise ListError("\n".join(errors))
    return rows


def tree_files(top, build):
    """The tree's files as git sees them (tracked, and new ones not ignored)."""
    try:
        out = subprocess.run(["git", "-C", top, "ls-files", "-z", "-co", "--exclude-standard"],
                             check=True, capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p and os.path.lexists(os.path.join(top, p))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, subdirs, names in os.walk(top):
            rel = os.path.relpath(d, top)
            subdirs[:] = [s for s in subdirs if os.path.normpath(os.path.join(rel, s)) not in
                          (build, ".git")]
            files += [os.path.normpath(os.path.join(rel, n)) for n in names]
        return files


def copy_tree(top, build, scratch):
    for rel in tree_files(top, build):
        src, dst = os.path.join(top, rel), os.path.join(scratch, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)
    shutil.copytree(os.path.join(top, build), os.path.join(scratch, build), symlinks=True,
                    ignore=shutil.ignore_patterns("mutants", "student-kit"))


def snapshot(root):
    """Every file under root: (mtime_ns, size), or the link's target."""
    snap = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            st = os.lstat(p)
            snap[p] = os.readlink(p) if os.path.islink(p) else (st.st_mtime_ns, st.st_size)
    return snap


def restore_build(build_dir, pristine, snap):
    """The build folder as it was before the mutant: what make rebuilt from
    the mutant (and what the tests wrote) back from the pristine copy, what is
    new removed; mtimes kept, so make sees the tree as built again."""
    now = snapshot(build_dir)
    for p, was in now.items():
        if p not in snap:
            os.unlink(p)
        elif was != snap[p]:
            os.unlink(p)
            shutil.copy2(os.path.join(pristine, os.path.relpath(p, build_dir)), p,
                         follow_symlinks=False)
    for p in snap:
        if p not in now:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            shutil.copy2(os.path.join(pristine, os.path.relpath(p, build_dir)), p,
                         follow_symlinks=False)


def run(cmd, cwd, env=None, timeout=TIMEOUT):
    """(exit status or 'timeout', output)."""
    full_env = dict(os.environ)
    full_env.pop("MAKEFLAGS", None)  # this make's flags are not the scratch make's
    full_env.pop("MAKELEVEL", None)
    full_env.pop("MFLAGS", None)
    full_env.update(env or {})
    try:
        p = subprocess.run(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if e.stdout else ""
        return "timeout", out


CHECK_LINE = re.compile(r"^[^:\s]+:\d+:([FE]):([^:]+):([^:]+):\d+: ?(.*)$", re.M)


def test_command(spec, build, jobs):
    """The command and environment that run one test in the scratch tree."""
    kind, arg, _ = spec
    make = ["make", f"-j{jobs}", f"BUILD={build}"]
    if kind == "unit":
        return make + ["check-unit"], {"CK_RUN_SUITE": arg, "CK_VERBOSITY": "verbose"}
    if kind == "emulated":
        return make + ["check-emulated"], {"CHECK_ONLY": " ".join(arg), "CHECK_JOBS": str(jobs)}
    if kind == "batch":
        return make + ["check-batch"], {"BATCH_TESTS": "discovery"}
    if kind == "jail":
        return make + ["check-jail"], {"JAIL_TESTS": "refusals"}
    return make + [arg], {}


def failures(spec, out):
    """The names of the tests that failed, from a test run's output."""
    kind = spec[0]
    if kind == "unit":
        return [f"{m.group(2)}/{m.group(3)}: {m.group(4)[:100]}" for m in CHECK_LINE.finditer(out)]
    lines = [l.strip() for l in out.splitlines()]
    named = [l for l in lines if l.startswith("FAIL ")]
    if named:
        return [re.sub(r"^FAIL\s+", "", l)[:160] for l in named]
    errors = [l for l in lines if l and not l.startswith(("make", "  CC", "  LINK", "  NVCC"))]
    return [errors[-1][:160]] if errors else []


def unit_tests_passed(out):
    """The test functions a verbose Check run printed as passed."""
    return {m.group(1) for m in re.finditer(r"^[^:\s]+:\d+:P:[^:]+:([^:]+):\d+", out, re.M)}


def kill(spec, rc, out):
    """(killed?, what killed it, every test that failed) for one test run of a mutant."""
    if rc == "timeout":
        return True, f"{spec_text(spec)}: timed out after {TIMEOUT} s", []
    names = failures(spec, out)
    if spec[0] == "unit" and spec[2]:
        wanted = [n for n in names if n.split(":")[0].split("/")[1] == spec[2]]
        if wanted:
            return True, f"{spec_text(spec)}: {wanted[0]}", names
        if rc != 0:
            return False, (f"{spec_text(spec)}: its named test passed; the mutant failed only "
                           f"{'; '.join(names) or 'the run'}"), names
        return False, None, names
    if rc == 0:
        return False, None, names
    return True, f"{spec_text(spec)}: " + (names[0] if names else f"exit {rc}"), names


def main():
    ap = argparse.ArgumentParser(description="the grader's tests, mutation-tested")
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", help="comma-separated ids")
    ap.add_argument("--list", default=LIST)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", action="store_true", help="keep the scratch tree")
    ap.add_argument("--report", help="where the kill table goes (TSV)")
    args = ap.parse_args()
    t0 = time.monotonic()

    try:
        rows = read_list(args.list, TOP)
    except ListError as e:
        fail_setup(f"the list cannot be applied:\n{e}")
    if args.only:
        want = args.only.split(",")
        unknown = [w for w in want if w not in {r["id"] for r in rows}]
        if unknown:
            fail_setup(f"--only: no mutant {', '.join(unknown)}")
        rows = [r for r in rows if r["id"] in want]
    if not os.path.isdir(os.path.join(TOP, args.build)):
        fail_setup(f"no {args.build}/: run make check first (the mutants reuse its objects)")

    scratch = tempfile.mkdtemp(prefix="smemlab-mutants.")
    code = 2
    try:
        code = mutate_all(rows, args, scratch, t0)
    finally:
        if args.keep:
            print(f"kept the scratch tree: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(code)


def mutate_all(rows, args, scratch, t0):
    tree = os.path.join(scratch, "tree")
    build_dir = os.path.join(tree, args.build)
    pristine = os.path.join(scratch, "pristine")
    copy_tree(TOP, args.build, tree)
    specs = []
    for r in rows:
        specs += [s for s in r["specs"] if s not in specs]

    # Before any mutant: every test named passes, and every named test exists.
    built = sorted({os.path.join(args.build, t) for s in specs for t in BUILT[s[0]]})
    rc, out = run(["make", f"-j{args.jobs}", f"BUILD={args.build}"] + built, tree)
    if rc != 0:
        fail_setup(f"the unmutated tree does not build:\n{out[-3000:]}")
    print(f"[{time.monotonic() - t0:5.0f} s] scratch tree {tree}; "
          f"{len(rows)} mutants, {len(specs)} tests; each test first without a mutant")
    for spec in specs:
        cmd, env = test_command(spec, args.build, args.jobs)
        rc, out = run(cmd, tree, env)
        if rc != 0:
            fail_setup(f"{spec_text(spec)} fails with no mutant applied:\n{out[-3000:]}")
        if spec[0] == "unit" and spec[2] and spec[2] not in unit_tests_passed(out):
            fail_setup(f"{spec_text(spec)}: suite {spec[1]} has no test {spec[2]}")
    snap_pristine = time.monotonic()
    shutil.copytree(build_dir, pristine, symlinks=True)
    snap = snapshot(build_dir)
    print(f"[{time.monotonic() - t0:5.0f} s] baseline passed; mutants:")

    results = []
    for r in rows:
        m0 = time.monotonic()
        path = os.path.join(tree, r["file"])
        st = os.stat(path)
        with open(path, encoding="utf-8") as f:
            original = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace(r["find"], r["replace"], 1))
        status, why, failed = "SURVIVED", "every test passed", []
        try:
            need = sorted({os.path.join(args.build, t) for s in r["specs"] for t in BUILT[s[0]]})
            rc, out = run(["make", f"-j{args.jobs}", f"BUILD={args.build}"] + need, tree) \
                if need else (0, "")
            if rc != 0:
                status = "ERROR"
                why = "does not compile: " + next((l.strip() for l in out.splitlines()
                                                   if "error" in l), out.strip()[-200:])
            else:
                for spec in r["specs"]:
                    cmd, env = test_command(spec, args.build, args.jobs)
                    rc, out = run(cmd, tree, env)
                    killed, what, names = kill(spec, rc, out)
                    failed += [f"{spec_text(spec)}: {n}" for n in names]
                    if killed:
                        status, why = "KILLED", what
                        break
                    if what:
                        status, why = "SURVIVED", what
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            restore_build(build_dir, pristine, snap)
        secs = time.monotonic() - m0
        results.append((r, status, why, secs, failed))
        print(f"  {status:8s} {r['id']:28s} {secs:5.1f} s  {why}", flush=True)

    total = time.monotonic() - t0
    killed = sum(1 for _, s, _, _, _ in results if s == "KILLED")
    by_test = {}
    for _, s, why, _, _ in results:
        if s == "KILLED":
            key = why.split(": ")[0]
            by_test[key] = by_test.get(key, 0) + 1
    report = args.report or os.path.join(TOP, args.build, "mutants", "report.tsv")
    os.makedirs(os.path.dirname(report), exist_ok=True)
    with open(report, "w", encoding="utf-8") as f:
        f.write("id\tstatus\tseconds\tkilled_by\tfile\tbreaks\tevery_failure\n")
        for r, s, why, secs, failed in results:
            every = " | ".join(n.replace("\t", " ") for n in failed)
            f.write(f"{r['id']}\t{s}\t{secs:.1f}\t{why}\t{r['file']}\t{r['breaks']}\t{every}\n")
    print("killed by: " + ", ".join(f"{k} {v}" for k, v in sorted(by_test.items(),
                                                                      key=lambda kv: -kv[1])))
    bad = [(r, s, why) for r, s, why, _, _ in results if s != "KILLED"]
    for r, s, why in bad:
        print(f"{s}: {r['id']} ({r['file']}: {r['breaks']}): {why}")
    print(f"check-mutants: {killed} of {len(results)} mutants killed in {total:.0f} s "
          f"({args.jobs} jobs; setup and baseline {snap_pristine - t0:.0f} s); "
          f"table in {os.path.relpath(report, TOP)}")
    if any(s == "ERROR" for _, s, _ in bad):
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    main()
