#!/usr/bin/env python3
"""validate.py RESULTS_DIR LAB KERNEL... - every report of a batch run against
its schema, and against the per-student records it was made from.

  records            record.schema.json
  gradebook.csv      RFC 4180 (csv module, strict), header, one row per record,
                     the same name, email, points, status, reason and provenance as
                     the record,
                     and no cell a spreadsheet would take for a formula (OWASP: a
                     text cell starting with = + - @ tab or CR is written with a
                     leading ')
  gradescope/*/results.json   gradescope.schema.json; score = the record's points
  autolab/*.txt      last line: autolab.schema.json; scores add up to the points
  feedback/*.txt, .html   the HTML parses, holds no raw markup from the data,
                     and says the same as the text (every line of the text is in it)
  junit.xml          checked with xmllint --schema junit.xsd by the caller
"""
import csv, glob, html, html.parser, io, json, os, re, sys
import jsonschema

here = os.path.dirname(os.path.abspath(__file__))
res, lab, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
errors = []
def err(msg): errors.append(msg)
def schema(name): return json.load(open(os.path.join(here, name)))

records = {}
for p in sorted(glob.glob(os.path.join(res, "*.json"))):
    if os.path.basename(p) == "class.json":  # the class's way of grading (identity.c)
        continue
    r = json.load(open(p))
    try:
        jsonschema.validate(r, schema("record.schema.json"))
    except jsonschema.ValidationError as e:
        err("%s: %s" % (p, e.message))
    records[r["student"]] = r

raw = open(os.path.join(res, "gradebook.csv"), newline="").read()
if not raw.endswith("\r\n") or "\n" in raw.replace("\r\n", "") and not '"' in raw:
    err("gradebook.csv: lines must end in CRLF (RFC 4180)")
rows = list(csv.reader(io.StringIO(raw, newline=""), strict=True))
want_header = ["student", "name", "email", "late", "points", "max"] + kernels + ["status", "reason", "provenance",
               "max_here", "final", "policy", "lms", "lms_id", "graded_with"]
def cell(text):
    """What the gradebook must hold for a text: OWASP's ' before a formula."""
    return "'" + text if text.lstrip(" ")[:1] in ("=", "+", "-", "@", "\t", "\r") and text.lstrip(" ") else text
if rows[0] != want_header:
    err("gradebook.csv header %r, want %r" % (rows[0], want_header))
seen = set()
for row in rows[1:]:
    if len(row) != len(want_header):
        err("gradebook.csv: row %r has %d fields, want %d" % (row, len(row), len(want_header)))
        continue
    s = row[0]
    seen.add(s)
    r = records.get(s)
    if not r:
        err("gradebook.csv: %s has no record" % s); continue
    if float(row[4]) != r["points"] or float(row[5]) != r["max_points"]:
        err("gradebook.csv: %s points %s/%s, record %s/%s" % (s, row[4], row[5], r["points"], r["max_points"]))
    col = dict(zip(want_header, row))
    if col["status"] != r["status"] or col["reason"] != cell(r["reason"]) or col["provenance"] != cell(r["provenance"]):
        err("gradebook.csv: %s status/reason/provenance differ from the record" % s)
    if any(c["status"] == "pass" for c in r["checks"]) and not r["provenance"]:
        err("%s: graded, yet no provenance (what graded it, and how)" % s)
    if row[1] != cell(r["name"]) or row[2] != cell(r["email"]) or row[3] != ("late" if r["late"] else ""):
        err("gradebook.csv: %s name/email/late %r differ from the record %r" % (s, row[1:4], (r["name"], r["email"], r["late"])))
    for x in row:
        if x[:1] in ("=", "+", "-", "@", "\t", "\r"):
            err("gradebook.csv: %s: the cell %r would be a formula" % (s, x))
    kpts = [float(x) for x in row[6:6 + len(kernels)] if x != ""]
    if r["status"] == "graded" and abs(sum(kpts) - r["points"]) > 1e-9:
        err("gradebook.csv: %s kernel columns add to %s, not %s" % (s, sum(kpts), r["points"]))
if seen != set(records):
    err("gradebook.csv students %s differ from the records %s" % (sorted(seen), sorted(records)))
if [r[0] for r in rows[1:]] != sorted(r[0] for r in rows[1:]):
    err("gradebook.csv is not sorted by student")

class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.out = []; self.tags = []
    def handle_starttag(self, tag, attrs): self.tags.append(tag)
    def handle_data(self, d): self.out.append(d)

for s, r in records.items():
    gs = os.path.join(res, "gradescope", s, "results.json")
    try:
        g = json.load(open(gs))
        jsonschema.validate(g, schema("gradescope.schema.json"))
        final = next((float(x[-5]) for x in rows[1:] if x[0] == s), r["points"])  # after the policy
        if g["score"] != final:
            err("%s: Gradescope score %s, the gradebook's final %s" % (gs, g["score"], final))
        graded_max = sum(c["max_points"] for c in r["checks"])
        rest = 1 if r["checks"] and r["max_points"] - graded_max > 1e-9 else 0
        if r["checks"] and len(g["tests"]) != len(r["checks"]) + rest:
            err("%s: %d tests for %d checks" % (gs, len(g["tests"]), len(r["checks"])))
        # checks not measured here are worth 0 there (and have no status): what was graded here
        if abs(sum(t["max_score"] for t in g["tests"]) - r.get("max_here", r["max_points"])) > 1e-9:
            err("%s: max scores do not add up to %s" % (gs, r.get("max_here", r["max_points"])))
        for t, c in zip(g["tests"], r["checks"]):
            if c["status"] in ("not-measured", "not-graded") and ("status" in t or t["max_score"] != 0):
                err("%s: %s is %s, not a test that passed or failed" % (gs, t["name"], c["status"]))
            # a check that waits for another: no verdict yet, its points still to win
            if c["status"] == "waiting" and ("status" in t or t["max_score"] != c["max_points"]
                                            or not t["name"].endswith("(not run yet)")):
                err("%s: %s waits for another check: no status, its points, '(not run yet)'" % (gs, t["name"]))
    except (OSError, ValueError, jsonschema.ValidationError) as e:
        err("%s: %s" % (gs, e))
    al = os.path.join(res, "autolab", s + ".txt")
    try:
        last = open(al).read().rstrip("\n").split("\n")[-1]
        a = json.loads(last)
        jsonschema.validate(a, schema("autolab.schema.json"))
        if list(a["scores"]) != kernels:
            err("%s: scores %s, want the kernels %s" % (al, list(a["scores"]), kernels))
        if abs(sum(a["scores"].values()) - r["points"]) > 1e-9 or a["scoreboard"][0] != r["points"]:
            err("%s: scores do not add up to %s" % (al, r["points"]))
    except (OSError, ValueError, jsonschema.ValidationError) as e:
        err("%s: %s" % (al, e))
    txt = open(os.path.join(res, "feedback", s + ".txt")).read()
    page = open(os.path.join(res, "feedback", s + ".html")).read()
    p = Text(); p.feed(page)
    if set(p.tags) - {"html", "head", "meta", "title", "style", "body", "h1", "dl", "dt", "dd",
                      "code", "table", "tr", "th", "td", "br", "small", "p", "strong", "pre", "a"}:
        err("%s.html: unexpected tags %s (unescaped data?)" % (s, set(p.tags)))
    # its one link: the grader's report page of this student's source, which exists
    for href in re.findall(r'<a [^>]*href="([^"]*)"', page):
        if href != "../pages/%s.html" % r["sha256"] or not os.path.isfile(
                os.path.join(res, "pages", r["sha256"] + ".html")):
            err("%s.html: a link to %s, not to this source's report page" % (s, href))
    flat = " ".join("".join(p.out).split())
    for item in [r["reason"], r["provenance"], r["source_note"]] + [c["message"] for c in r["checks"]] + [c["hint"] for c in r["checks"] if c["status"] != "pass"]:
        if item and " ".join(item.split()) not in flat:
            err("%s.html lacks %r" % (s, item))
        if item and item not in txt:
            err("%s.txt lacks %r" % (s, item))
    if ("%g/%g" % (r["points"], r["max_points"])) not in txt or ("%g/%g" % (r["points"], r["max_points"])) not in flat:
        err("%s: feedback lacks the score" % s)

for e in errors:
    print("validate:", e)
print("validate: %d records, %d errors" % (len(records), len(errors)))
sys.exit(1 if errors else 0)
