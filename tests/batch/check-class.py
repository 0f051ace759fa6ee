#!/usr/bin/env python3
"""check-class.py EXPECTED.TSV RESULTS_DIR - the gradebook of a generated class
against what each submission should get (gen-class.py): solutions full marks,
skeletons and planted variants graded but not full, broken files not compiled.
Also prints the build/grade split of the run from the records."""
import csv, json, os, sys

expected = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
res = sys.argv[2]
rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(res, "gradebook.csv"), newline=""))}
bad = 0
for sid, kind, want in expected:
    r = rows.get(sid)
    if not r:
        print("MISSING %s (%s)" % (sid, kind)); bad += 1; continue
    pts, mx, st = float(r["points"]), float(r["max"]), r["status"]
    ok = {"full": st == "graded" and pts == mx,
          "not-full": st == "graded" and pts < mx,
          "not-compiled": st == "not-compiled"}[want]
    if not ok:
        print("WRONG %s (%s): want %s, got %s %g/%g %s" % (sid, kind, want, st, pts, mx, r["reason"]))
        bad += 1
build = grade = 0.0
seen = set()
for sid, _, _ in expected:
    try:
        rec = json.load(open(os.path.join(res, sid + ".json")))
    except OSError:
        continue
    if rec["sha256"] in seen:
        continue
    seen.add(rec["sha256"])
    build += rec["build_seconds"]; grade += rec["grade_seconds"]
print("check-class: %d submissions, %d as expected, %d not" % (len(expected), len(expected) - bad, bad))
print("check-class: summed over %d sources: building %.1f s (%.2f s each), grading %.1f s (%.2f s each)"
      % (len(seen), build, build / max(len(seen), 1), grade, grade / max(len(seen), 1)))
sys.exit(1 if bad else 0)
