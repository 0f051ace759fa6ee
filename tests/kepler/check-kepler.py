#!/usr/bin/env python3
"""check-kepler.py BUILD GRADER - grading as the course's Tesla K40 (make grade
GPU=kepler; docs/emulator.md#kepler), held to tests/kepler/manifest.tsv: every
row's check has its status and words, and where the course notes give the K40's
nvprof figure (shared transactions a request), the check counted as many
wavefronts a request. Every library is graded once with --gpu kepler --json;
its report must say it was graded as the K40 (the device line, and the JSON's
graded_as: sm_35, 32 banks of 8 bytes), and its exit status must be the one its
rows make (1 where one fails, 4 where one is not graded and none fails, else 0).
CHECK_ONLY="NAME ..." grades those libraries alone (make check-mutants).
"""
import concurrent.futures, json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
build, grader = sys.argv[1], sys.argv[2]
out = os.path.join(build, "kepler")
os.makedirs(out, exist_ok=True)
only = os.environ.get("CHECK_ONLY", "").split()


def library(name):
    """(lab, path) of a row's library: a solution's or a planted variant's, as built by
    make check-compile."""
    lab = name.split("-")[0]
    if name.endswith("-solution"):
        base = os.path.join(build, "compile-check", "solutions")
        folder = next(d for d in sorted(os.listdir(base)) if d.startswith(lab + "-"))
        return lab, os.path.join(base, folder, lab + ".so")
    return lab, os.path.join(build, "compile-check", "planted", name + ".so")


rows = []
for line in open(os.path.join(here, "manifest.tsv")):
    if line.startswith("#") or line.startswith("library\t") or not line.strip():
        continue
    rows.append(line.rstrip("\n").split("\t"))
names = sorted({r[0] for r in rows if not only or r[0] in only})
missing = [n for n in only if n not in {r[0] for r in rows}]
if missing:
    sys.exit("CHECK_ONLY: %s: no row of tests/kepler/manifest.tsv" % " ".join(missing))


def grade(name):
    lab, path = library(name)
    js = os.path.join(out, name + ".json")
    r = subprocess.run([grader, "--gpu", "kepler", "--lib", path, "--json", js, lab],
                       capture_output=True, text=True)
    open(os.path.join(out, name + ".txt"), "w").write(r.stdout + r.stderr)
    return name, r.returncode, js


passed = failed = 0


def ok(what):
    global passed
    passed += 1
    print("ok    " + what)


def bad(what):
    global failed
    failed += 1
    print("FAIL  " + what)


with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
    graded = {n: (rc, js) for n, rc, js in pool.map(grade, names)}

for name in names:
    rc, js = graded[name]
    try:
        lab = json.load(open(js))["labs"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        bad("%s: no report (exit %d: %s)" % (name, rc, e))
        continue
    g = lab.get("graded_as") or {}
    if (g.get("gpu"), g.get("name"), g.get("sm"), g.get("banks"), g.get("bank_bytes")) == \
            ("kepler", "Tesla K40", "sm_35", 32, 8) and \
            lab["device"].startswith("emulated on the CPU as the course's Tesla K40 (sm_35)"):
        ok("%s: graded as the course's Tesla K40 (sm_35, 32 banks x 8 bytes), the report and "
           "the JSON say so" % name)
    else:
        bad("%s: graded as %s, device \"%s\"" % (name, g, lab["device"][:90]))
    checks = {(c["kernel"], c["check"]): c for c in lab["checks"]}
    mine = [r for r in rows if r[0] == name]
    want_rc = 1 if any(c["status"] == "fail" for c in lab["checks"]) else \
        4 if any(c["status"] == "not-graded" for c in lab["checks"]) else 0
    if rc != want_rc:
        bad("%s: exit %d where its checks make %d" % (name, rc, want_rc))
    for _, kernel, check, status, words, k40 in mine:
        if check == "*":
            wrong = [c for c in lab["checks"] if c["status"] != status]
            if wrong or lab["points"] != lab["max_points"]:
                bad("%s: not every check %s (%s/%s points): %s" % (
                    name, status, lab["points"], lab["max_points"],
                    "; ".join("%s %s %s" % (c["kernel"], c["check"], c["status"]) for c in wrong)))
            else:
                ok("%s: every check %s, %s/%s points" % (name, status, lab["points"],
                                                          lab["max_points"]))
            continue
        c = checks.get((kernel, check))
        what = "%s %s %s" % (name, kernel, check)
        if not c:
            bad("%s: not in the report" % what)
            continue
        if c["status"] != status or (words != "-" and words not in c["message"]):
            bad("%s: %s \"%s\", expected %s \"%s\"" % (what, c["status"], c["message"], status,
                                                       words))
            continue
        if k40 != "-":
            n = c.get("counts") or {}
            per = n["wavefronts"] / n["requests"] if n.get("requests") else None
            if per is None or abs(per - float(k40)) > 1e-9:
                bad("%s: %s wavefronts a request, the K40's nvprof %s" % (what, per, k40))
                continue
            ok("%s %s \"%s\": %g wavefronts a request, as the K40 measured (%s transactions "
               "a request)" % (what, status, words, per, k40))
        else:
            ok("%s %s \"%s\"" % (what, status, words))
print("kepler: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
