#!/usr/bin/env bash
# test-exports.sh BUILD - classes as learning systems export them (make
# check-exports; fakes for nvcc and the grader: discovery and reports are
# what is tested).
#
#  Moodle     a .zip of 30 (folders per student, a few flat files, a wrapper
#             folder, an online-text folder, a zip uploaded inside a folder),
#             names with spaces, commas, accents, quotes, a leading = + - @
#  Canvas     a folder of 30 flat files (LATE, anonymous, a second upload named
#             lab3-1.cu, a zip upload, a README beside), then with a roster
#  Blackboard attempts: the latest is graded, the .txt names the student
#  Gradescope a .tar.xz export: submission_metadata.yml, a group of two
#  flat      a folder of NAME.cu with spaces in the names, and a .tar of it
# Each: every student once in the gradebook with their original name, ids safe
# and the same on a second run, every report valid, no cell a formula.
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=$(cd "$HERE/../.." && pwd)
BATCH=$KIT/$BUILD/smemlab-batch
T=$(mktemp -d /tmp/smemlab-test-exports.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
FAKE=(--grader "$HERE/fake-grader" --nvcc "$HERE/fake-nvcc" --nvcc-arch=-fake --plain -j 4)
KERNELS=(setRowReadColPad setRowReadColDynPad)
SRC=$KIT/labs/lab3-padding/lab3.cu
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "  ok    $*"; }
no() { fails=$((fails + 1)); echo "  FAIL  $*"; }

# check_book RESULTS EXPECTED.tsv: the gradebook against what gen wrote
# (name <tab> status <tab> points <tab> late <tab> email, one per student)
check_book() {
    python3 - "$1" "$2" <<'EOF'
import csv, sys
res, exp = sys.argv[1], sys.argv[2]
raw = open(res + "/gradebook.csv", newline="", encoding="utf-8").read()
rows = list(csv.DictReader(raw.splitlines(keepends=True)))
want = [l.rstrip("\n").split("\t") for l in open(exp, encoding="utf-8")]
bad = []
def cell(t):  # OWASP: a formula-looking text is written with a leading '
    return "'" + t if t.lstrip(" ")[:1] in ("=", "+", "-", "@") else t
names = [r["name"] for r in rows]
for name, status, points, late, email in want:
    got = [r for r in rows if r["name"] == cell(name)]
    if len(got) != 1:
        bad.append("%r: %d rows" % (name, len(got))); continue
    r = got[0]
    if r["status"] != status or (points and r["points"] != points) or r["late"] != late or (email and r["email"] != email):
        bad.append("%r: %s %s %r %r, want %s %s %r %r" % (name, r["status"], r["points"], r["late"], r["email"], status, points, late, email))
for r in rows:
    for v in r.values():
        if v[:1] in ("=", "+", "-", "@", "\t", "\r"):
            bad.append("a cell that is a formula: %r" % v)
    if not all(c.isalnum() or c in "._-" for c in r["student"]):
        bad.append("unsafe id %r" % r["student"])
if len(rows) != len(want):
    bad.append("%d rows, want %d" % (len(rows), len(want)))
for b in bad:
    print("   ", b)
print("%d rows, %d as expected" % (len(rows), len(want) - len(bad)))
sys.exit(1 if bad else 0)
EOF
}
validate() { # every report against its schema (validate.py), JUnit against its XSD
    if python3 "$HERE/validate.py" "$1" lab3 "${KERNELS[@]}" > "$T/validate.log" 2>&1 &&
       xmllint --noout --schema "$HERE/junit.xsd" "$1/junit.xml" 2>> "$T/validate.log"; then
        ok "$2: reports valid ($(tail -n1 "$T/validate.log"))"
    else
        no "$2: reports invalid:"; head -20 "$T/validate.log"
    fi
}
run() { # run NAME CLASS [ARGS...]: grade, check the gradebook, validate the reports
    local name=$1 class=$2; shift 2
    "$BATCH" "${FAKE[@]}" "$@" lab3 "$class" -o "$T/res-$name" > "$T/$name.log" 2>&1
    local rc=$?
    [ $rc = 0 ] && ok "$name: batch exit 0" || { no "$name: batch exit $rc"; tail -20 "$T/$name.log"; }
    if check_book "$T/res-$name" "$T/$name.tsv" > "$T/$name.check" 2>&1; then
        ok "$name: $(tail -n1 "$T/$name.check"), each with its original name"
    else
        no "$name: gradebook:"; cat "$T/$name.check"
    fi
    validate "$T/res-$name" "$name"
}

python3 - "$T" "$SRC" <<'EOF'
import io, os, sys, tarfile, zipfile
T, src = sys.argv[1], open(sys.argv[2], "rb").read()
def code(who): return src + ("\n// %s\n" % who).encode()
def tsv(name, rows):
    with open(os.path.join(T, name + ".tsv"), "w", encoding="utf-8") as f:
        for r in rows: f.write("\t".join(r) + "\n")

# --- Moodle: 30, in a zip with a wrapper folder ---------------------------------
names = ["Ada Lovelace", "Lovelace, Ada", "José Martínez", "Zoë Ångström", "Łukasz Żółć",
         "Nguyễn Văn An", "王小明", "Ольга Петрова", "=SUM(1+1)", "+1 555 0100", "-3+4",
         "@admin", "O'Brien, Seán", 'Dwayne "The Rock" Johnson', "Mary-Jane Watson",
         "Jean-Luc Picard", "Æsa Ødegård", "François Müller", "Ñandú Peña", "İlkay Gündoğan",
         "Ana Paula de Souza", "Kim, Jong", "Straße Groß", "A. B. C.", "  Spaces  Around ",
         "Tab\tInside", "Semi;colon", "Hash #1", "Percent 100%", "Dollar $5"]
rows = []
with zipfile.ZipFile(os.path.join(T, "moodle.zip"), "w") as z:
    for i, n in enumerate(names):
        pid = 1000 + i
        folder = n.replace("_", " ")
        base = "Lab 3-Shared memory-777/"
        if i % 10 == 3:  # "download submissions in folders" off: flat
            z.writestr(base + "%s_%d_assignsubmission_file_lab3.cu" % (folder, pid), code(n))
        elif i % 10 == 5:  # a zip uploaded: lab3.cu inside it
            inner = io.BytesIO()
            with zipfile.ZipFile(inner, "w") as iz:
                iz.writestr("mywork/lab3-padding/lab3.cu", code(n))
                iz.writestr("mywork/README.md", b"notes")
            z.writestr(base + "%s_%d_assignsubmission_file_/lab3.zip" % (folder, pid), inner.getvalue())
        else:
            z.writestr(base + "%s_%d_assignsubmission_file_/lab3.cu" % (folder, pid), code(n))
        if i % 10 == 7:  # an online text beside it
            z.writestr(base + "%s_%d_assignsubmission_onlinetext_/onlinetext.html" % (folder, pid), b"<p>hi</p>")
        shown = n.replace("\t", "\ufffd")
        rows.append((shown, "graded", "12", "", ""))
    z.writestr("__MACOSX/._junk", b"x")
tsv("moodle", rows)

# --- Canvas: 30 flat files, then a roster -------------------------------------------
cv = os.path.join(T, "canvas"); os.makedirs(cv)
people = [("Lovelace", "Ada"), ("Martínez", "José"), ("Ångström", "Zoë"), ("O'Brien", "Seán"),
          ("de Souza", "Ana Paula")] + [("Student%02d" % i, "Test") for i in range(5, 30)]
rows, roster = [], ["id,name,email"]
for i, (last, first) in enumerate(people):
    sortable = "".join(c for c in (last + ", " + first).lower() if c.isalnum() or c == "_")
    uid, att = 50000 + i, 900000 + i
    late = "_LATE" if i % 7 == 2 else ""
    name = sortable
    if i == 9:  # anonymous grading
        fname = "%sanon_k%dq_%d_lab3.cu" % ("LATE_" if late else "", i, att); name = "anon_k%dq" % i
    elif i == 11:  # a second upload of lab3.cu, renamed by Canvas
        fname = "%s%s_%d_%d_lab3-1.cu" % (sortable, late, uid, att)
    elif i == 13:  # a zip upload
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w") as iz: iz.writestr("lab3.cu", code(sortable))
        open(os.path.join(cv, "%s%s_%d_%d_lab3.zip" % (sortable, late, uid, att)), "wb").write(inner.getvalue())
        fname = None
    else:
        fname = "%s%s_%d_%d_lab3.cu" % (sortable, late, uid, att)
    if fname:
        open(os.path.join(cv, fname), "wb").write(code(sortable))
    if i == 4:  # a README beside the code
        open(os.path.join(cv, "%s_%d_%d_README.txt" % (sortable, uid, att + 1)), "w").write("x")
    rows.append((name, "graded", "12", "late" if late else "", ""))
    if i != 9:
        roster.append('s%03d,"%s %s",%s@example.edu' % (i, first, last, "s%03d" % i))
roster.append('s999,"Never Submitted",never@example.edu')
open(os.path.join(T, "roster.csv"), "w", encoding="utf-8").write("\ufeff" + "\r\n".join(roster) + "\r\n")
tsv("canvas", rows)
rrows = []
for i, (last, first) in enumerate(people):
    if i == 9: rrows.append(("anon_k9q", "graded", "12", "late", "")); continue
    rrows.append(("%s %s" % (first, last), "graded", "12", "late" if i % 7 == 2 else "", "s%03d@example.edu" % i))
rrows.append(("Never Submitted", "rejected", "0", "", "never@example.edu"))
tsv("canvas-roster", rrows)

# --- Blackboard: attempts ------------------------------------------------------------
bb = os.path.join(T, "blackboard"); os.makedirs(bb)
def bbf(user, date, name, data): open(os.path.join(bb, "Lab 3_%s_attempt_%s%s" % (user, date, name)), "wb").write(data)
bbf("alovelace", "2026-01-10-09-00-00", "_lab3.cu", code("old") + b"\nFAKE-COMPILE-ERROR\n")
bbf("alovelace", "2026-01-12-09-00-00", "_lab3.cu", code("new"))
bbf("alovelace", "2026-01-12-09-00-00", ".txt", "Name: Ada Lovelace (alovelace)\nAssignment: Lab 3\n".encode())
bbf("jmartinez", "2026-01-11-10-00-00", "_lab3.cu", code("jm"))
bbf("jmartinez", "2026-01-11-10-00-00", ".txt", "Name: José Martínez (jmartinez)\n".encode())
bbf("nobody1", "2026-01-11-11-00-00", "_notes.txt", b"no code")
tsv("blackboard", [("Ada Lovelace", "graded", "12", "", ""), ("José Martínez", "graded", "12", "", ""),
                   ("nobody1", "rejected", "0", "", "")])

# --- Gradescope: a .tar.xz export ------------------------------------------------------
yml = """---
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-01-12 09:00:00.000000000 -08:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: "José Martínez"
    :sid: '2001'
    :email: jose@example.edu
  - :name: '=Grace O''Hopper'
    :sid: '1906'
    :email: grace@example.edu
  :created_at: 2026-01-12 10:00:00.000000000 -08:00
submission_103:
  :submitters:
  - :name: Empty Folder
    :sid: '3000'
    :email: empty@example.edu
"""
with tarfile.open(os.path.join(T, "gradescope.tar.xz"), "w:xz") as t:
    def add(path, data):
        i = tarfile.TarInfo(path); i.size = len(data); t.addfile(i, io.BytesIO(data))
    add("assignment_42_export/submission_metadata.yml", yml.encode())
    add("assignment_42_export/submission_101/lab3.cu", code("ada"))
    add("assignment_42_export/submission_102/src/lab3.cu", code("pair"))
    add("assignment_42_export/submission_103/README", b"nothing")
tsv("gradescope", [("Ada Lovelace", "graded", "12", "", "ada@example.edu"),
                   ("José Martínez", "graded", "12", "", "jose@example.edu"),
                   ("=Grace O'Hopper", "graded", "12", "", "grace@example.edu"),
                   ("Empty Folder", "rejected", "0", "", "empty@example.edu")])

# --- a flat folder of NAME.cu, and a .tar of it ----------------------------------------------
fl = os.path.join(T, "flat"); os.makedirs(fl)
flat = ["Ada Lovelace", "José Martínez", "=1+1", "plain"]
for n in flat: open(os.path.join(fl, n + ".cu"), "wb").write(code(n))
tsv("flat", [(n, "graded", "12", "", "") for n in flat])
with tarfile.open(os.path.join(T, "flat.tar"), "w") as t:
    t.add(fl, arcname="flat")
tsv("flat-tar", [(n, "graded", "12", "", "") for n in flat])
EOF

echo "[$SECONDS s] == Moodle: a .zip of 30"
run moodle "$T/moodle.zip"
ids1=$(cut -d, -f1 "$T/res-moodle/gradebook.csv" | sort | md5sum)
"$BATCH" "${FAKE[@]}" --regrade lab3 "$T/moodle.zip" -o "$T/res-moodle2" > /dev/null 2>&1
ids2=$(cut -d, -f1 "$T/res-moodle2/gradebook.csv" | sort | md5sum)
[ "$ids1" = "$ids2" ] && ok "moodle: the same student ids on a second run" || no "moodle: ids changed between runs"
grep -q 'Ada_Lovelace_1000-[0-9a-f]\{8\}' "$T/res-moodle/gradebook.csv" && [ -f "$T/res-moodle/feedback/$(grep -o 'Ada_Lovelace_1000-[0-9a-f]\{8\}' "$T/res-moodle/gradebook.csv" | head -1).html" ] \
    && ok "moodle: 'Ada Lovelace_1000' gets the id Ada_Lovelace_1000-HASH, and her feedback that name" || no "moodle: ids"
python3 - "$T/res-moodle/gradebook.csv" <<'EOF' && ok "moodle: '=SUM(1+1)' is the text \"'=SUM(1+1)\" in a quoted cell" || no "moodle: the formula cell"
import sys
raw = open(sys.argv[1], encoding="utf-8").read()
sys.exit(0 if "\"'=SUM(1+1)\"" in raw and ",=SUM" not in raw else 1)
EOF

echo "[$SECONDS s] == Canvas: a folder of 30, then a roster"
run canvas "$T/canvas"
run canvas-roster "$T/canvas" --roster "$T/roster.csv"
[ -f "$T/res-canvas-roster/s000.json" ] && grep -q '"Ada Lovelace"' "$T/res-canvas-roster/s000.json" \
    && ok "roster: lovelaceada_50000 is s000, Ada Lovelace" || no "roster: s000"
grep -q "no submission" "$T/res-canvas-roster/s999.json" && ok "roster: s999 without a submission has a row that says so" || no "roster: s999"

echo "[$SECONDS s] == Blackboard: the latest attempt"
run blackboard "$T/blackboard"

echo "[$SECONDS s] == Gradescope: a .tar.xz export, a group of two"
run gradescope "$T/gradescope.tar.xz"

echo "[$SECONDS s] == a flat folder of NAME.cu, and a .tar of it"
run flat "$T/flat"
run flat-tar "$T/flat.tar"

echo "[$SECONDS s] == a roster that cannot be used: refused before any work"
printf 'name,email\nAda,ada@x\n' > "$T/bad-roster.csv"
"$BATCH" "${FAKE[@]}" --roster "$T/bad-roster.csv" lab3 "$T/flat" -o "$T/res-bad" > "$T/out" 2>&1
[ $? = 2 ] && grep -q "needs a header with the columns id and name" "$T/out" && ok "a roster without an id column: exit 2, says what it needs" || no "bad roster: $(cat "$T/out")"

echo "export tests: $passes passed, $fails failed"
[ $fails = 0 ]
