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
#
# Then the instructor's day (issue 30), with the real nvcc and the real grader
# (by emulation where there is no GPU): a Moodle export of 16 and a Canvas
# export of 16 with a roster (tests/batch/gen-exports.py), each as a folder and
# zipped. Renamed lab files are graded and named, several candidates give the
# newest upload where the export orders them and a refusal naming every file
# where it does not, empty files are empty submissions, accents are intact in
# every output, every output says what graded each student and how, no
# temporary path reaches a student, the compiler's first lines reach one whose
# file does not compile; the zip grades as the folder did. (make check-full:
# two classes built and graded for real; the exports before it are make check's.)
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

# make check (SMEMLAB_CHECK_TIER=fast): the exports, with the fakes; make
# check-full (full): the instructor's day, the real nvcc and grader; by hand
# (unset): both.
tier=${SMEMLAB_CHECK_TIER:-}
if [ "$tier" != full ]; then
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

fi # the fast tier

if [ "$tier" != fast ]; then
echo "[$SECONDS s] == the instructor's day: Moodle and Canvas exports, the real nvcc and grader"
GRADER=$KIT/$BUILD/smemlab-grade
if ! command -v nvcc > /dev/null || [ ! -f "$KIT/solutions/lab3-padding/lab3.cu" ] || [ ! -x "$GRADER" ]; then
    echo "  skip  (needs nvcc, the grader and solutions/: not in the student kit)"
else
    D=$T/day
    python3 "$HERE/gen-exports.py" --solution "$KIT/solutions/lab3-padding/lab3.cu" \
        --skeleton "$KIT/labs/lab3-padding/lab3.cu" "$D" > /dev/null
    REAL=(--plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 -j 2)
    if nvidia-smi > /dev/null 2>&1; then gpu=1; else gpu=; fi
    # day NAME CLASS [ARGS...]: grade for real; the log's Timing line, the wall time
    day() {
        local name=$1 class=$2; shift 2
        local t0=$SECONDS
        "$BATCH" "${REAL[@]}" "$@" lab3 "$class" -o "$D/res-$name" > "$D/$name.log" 2>&1
        local rc=$?
        [ $rc = 0 ] && ok "$name: exit 0 in $((SECONDS - t0)) s: $(grep -o '^lab3: [0-9]* submissions in [^:]*: .*' "$D/$name.log" | sed 's/ in [^:]*:/:/')" \
            || { no "$name: exit $rc"; tail -20 "$D/$name.log"; }
        timing=$(grep '^Timing:' "$D/$name.log")
    }
    # expected EXPORT RESULTS: each student of expected.tsv as it says (status, points,
    # reason, source and its note), in the gradebook and the records
    expected() {
        python3 - "$D/expected.tsv" "$1" "$2" <<'EOF2'
import csv, glob, json, sys
exp, export, res = sys.argv[1:]
rows = {r["name"]: r for r in csv.DictReader(open(res + "/gradebook.csv", newline="", encoding="utf-8"))}
# the students' records (class.json, the class's own, names no student)
recs = {r["name"]: r for r in (json.load(open(p, encoding="utf-8")) for p in glob.glob(res + "/*.json")) if "name" in r}
bad, n = [], 0
for line in open(exp, encoding="utf-8"):
    e, name, status, points, reason, source = line.rstrip("\n").split("\t")
    if e != export:
        continue
    n += 1
    r, rec = rows.get(name), recs.get(name)
    if not r or not rec:
        bad.append("%s: not in the gradebook" % name); continue
    where = rec["source"] + (" (" + rec["source_note"] + ")" if rec["source_note"] else "")
    if r["status"] != status or float(r["points"]) != float(points) or reason not in r["reason"] or source not in where:
        bad.append("%s: %s %s %r from %r; want %s %s %r from %r" % (name, r["status"], r["points"], r["reason"], where, status, points, reason, source))
for b in bad:
    print("   ", b)
print("%d students, %d as expected" % (n, n - len(bad)))
sys.exit(1 if bad or len(rows) != n else 0)
EOF2
    }
    # outputs RESULTS: accents intact and no \xNN anywhere, no temporary path, and
    # every graded student's provenance in each format
    outputs() {
        local res=$1 bad=
        grep -rlE '\\x[0-9a-f]{2}' "$res" > /dev/null && bad="$bad; a byte escaped as \\xNN"
        # (the kit's own path, in what graded each record, is the instructor's, wherever it lies)
        local tmp_paths
        tmp_paths=$(grep -rhoE 'smemlab-batch\.[A-Za-z0-9]{6}[^ "]*|/tmp/[^ "]*|'"$T"'[^ "]*' "$res" --exclude-dir=.slurm |
            grep -vF "$KIT/" | head -2)
        [ -n "$tmp_paths" ] && bad="$bad; a temporary path: $tmp_paths"
        for f in gradebook.csv junit.xml; do grep -q "Łukasz Żółć" "$res/$f" || bad="$bad; no Łukasz Żółć in $f"; done
        local n=0 rec s prov
        for rec in "$res"/*.json; do
            s=$(basename "$rec" .json)
            prov=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["provenance"] if r.get("status") == "graded" else "")' "$rec")
            [ -n "$prov" ] || continue
            n=$((n + 1))
            if [ -n "$gpu" ]; then [[ $prov == "trace on "* || $prov == "counters on "* ]] || bad="$bad; $s: provenance '$prov' on a GPU"
            else [ "$prov" = "emulated on the CPU: no GPU found; speed not measured" ] || bad="$bad; $s: provenance '$prov' without a GPU"; fi
            grep -qF "Graded by: $prov" "$res/feedback/$s.txt" && grep -qF "<dt>Graded by</dt><dd>$prov</dd>" "$res/feedback/$s.html" \
                && grep -qF "Graded by: $prov" "$res/autolab/$s.txt" && grep -qF "property name=\"provenance\" value=\"$prov\"" "$res/junit.xml" \
                && python3 -c 'import json,sys; sys.exit(sys.argv[2] not in json.load(open(sys.argv[1]))["output"])' "$res/gradescope/$s/results.json" "$prov" \
                || bad="$bad; $s: provenance missing from an output"
        done
        [ -z "$bad" ] && ok "$2: accents intact, no \\xNN, no temporary path; the provenance of all $n graded in the record, CSV, feedback, Gradescope, Autolab, JUnit" \
            || no "$2:$bad"
    }
    day moodle-zip "$D/moodle.zip"
    moodle_timing=$timing
    expected moodle "$D/res-moodle-zip" > "$D/check" && ok "moodle-zip: $(tail -n1 "$D/check")" || { no "moodle-zip:"; cat "$D/check"; }
    validate "$D/res-moodle-zip" moodle-zip
    outputs "$D/res-moodle-zip" moodle-zip
    if [ -n "$gpu" ]; then [[ $timing == *"GPU x"* ]] && ok "moodle-zip: the timing line names the GPU" || no "timing: $timing"
    else [[ $timing == *"graders at a time, emulated on the CPU: no GPU found; speed not measured"* && $timing != *"GPU x"* ]] \
        && ok "moodle-zip: no GPU, and the timing line says so (no 'GPU x graders')" || no "timing without a GPU: $timing"; fi
    jl=$(python3 -c 'import csv,sys; print(next(r["student"] for r in csv.DictReader(open(sys.argv[1], encoding="utf-8")) if r["name"] == "Jean-Luc Picard"))' "$D/res-moodle-zip/gradebook.csv")
    line=$(grep -o 'lab3.cu:[0-9]*' <<<"$(grep -F "Jean-Luc Picard" "$D/res-moodle-zip/gradebook.csv")" | head -1 | cut -d: -f2)
    grep -qF "The compiler's first lines:" "$D/res-moodle-zip/feedback/$jl.txt" && grep -qF "lab3.cu($line): error: expected an expression" "$D/res-moodle-zip/feedback/$jl.txt" \
        && grep -qxF "  int broken = ;" "$D/res-moodle-zip/feedback/$jl.txt" && grep -qF "lab3.cu($line): error" "$D/res-moodle-zip/gradescope/$jl/results.json" \
        && ok "a compile error: nvcc's first lines (lab3.cu($line): error, the line itself) in the feedback and Gradescope" \
        || { no "compile error lines:"; cat "$D/res-moodle-zip/feedback/$jl.txt"; }
    # the folder the zip unpacks to: the same students, sources and results (nothing to grade again)
    cp -r "$D/res-moodle-zip" "$D/res-moodle-dir"
    day moodle-dir "$D/moodle"
    grep -q ": 0 to grade, " "$D/moodle-dir.log" && cmp -s "$D/res-moodle-zip/gradebook.csv" "$D/res-moodle-dir/gradebook.csv" \
        && ok "moodle as a folder: the same gradebook as its zip, nothing graded twice" || { no "moodle folder differs from its zip"; diff "$D/res-moodle-zip/gradebook.csv" "$D/res-moodle-dir/gradebook.csv"; }
    day canvas-dir "$D/canvas" --roster "$D/roster.csv"
    expected canvas "$D/res-canvas-dir" > "$D/check" && ok "canvas with a roster: $(tail -n1 "$D/check")" || { no "canvas:"; cat "$D/check"; }
    validate "$D/res-canvas-dir" canvas-dir
    outputs "$D/res-canvas-dir" canvas-dir
    cp -r "$D/res-canvas-dir" "$D/res-canvas-zip"
    day canvas-zip "$D/canvas.zip" --roster "$D/roster.csv"
    grep -q ": 0 to grade, " "$D/canvas-zip.log" && cmp -s "$D/res-canvas-dir/gradebook.csv" "$D/res-canvas-zip/gradebook.csv" \
        && ok "canvas zipped: the same gradebook as the folder, nothing graded twice" || { no "canvas zip differs"; diff "$D/res-canvas-dir/gradebook.csv" "$D/res-canvas-zip/gradebook.csv"; }
    echo "  (moodle: $moodle_timing)"
fi

fi # the full tier

echo "export tests: $passes passed, $fails failed"
[ $fails = 0 ]
