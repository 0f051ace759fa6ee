#!/usr/bin/env bash
# test-batch-discovery.sh BUILD - smemlab-batch without a GPU: the command line (fails at once, before any work) and discovery: hostile archives, caps, names
# (make check; BATCH_TESTS=discovery runs it alone, as make check-mutants does; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

echo "[$SECONDS s] == command line: fails at once, before any work (exit 2)"
mkdir -p "$T/empty-class"
run_usage() { # run_usage DESCRIPTION WANT-IN-STDERR ARGS...
    local d=$1 want=$2; shift 2
    "$BATCH" "$@" > "$T/out" 2> "$T/err"; local rc=$?
    if [ $rc = 2 ] && grep -q -- "$want" "$T/err"; then ok "$d"; else no "$d: exit $rc, $(cat "$T/err")"; fi
}
run_usage "unknown lab" "unknown lab 'lab11'" lab11 "$T/empty-class" -o "$T/u1"
[ -e "$T/u1" ] && no "unknown lab made the results folder" || ok "unknown lab: results folder not made"
run_usage "missing submissions folder" "does not exist" lab3 "$T/nowhere" -o "$T/u2"
touch "$T/afile"
run_usage "results folder cannot be made" "cannot make the results folder" lab3 "$T/empty-class" -o "$T/afile/sub"
if [ "$(id -u)" != 0 ]; then
    mkdir -p "$T/ro" && chmod 555 "$T/ro"
    run_usage "results folder not writable" "not writable" lab3 "$T/empty-class" -o "$T/ro"
fi
run_usage "bad -j" "-j wants" -j 0 lab3 "$T/empty-class" -o "$T/u3"
run_usage "bad --gpus" "not a GPU number" --gpus 0,x lab3 "$T/empty-class" -o "$T/u3"
run_usage "unknown option" "unknown option" --frobnicate lab3 "$T/empty-class"
run_usage "--task without --chunk-file" "go together" --task 1 lab3 "$T/empty-class" -o "$T/u3"
mkdir -p "$T/one" && cp "$SOL" "$T/one/alice.cu"
run_usage "--only of an unknown student" "no submission has the student id 'zed'" --only zed "${FAKE[@]}" lab3 "$T/one" -o "$T/u4"
[ -e "$T/u4/alice.json" ] && no "--only zed graded something" || ok "--only zed: nothing graded"
"$BATCH" --help | grep -q -- "--chunk-file" && ok "--help documents the Slurm options" || no "--help"

echo "[$SECONDS s] == discovery, hostile archives, caps, names"
C=$T/class
mkdir -p "$C"
mkdir -p "$C/alice/deep/er" && variant "$C/alice/deep/er/lab3.cu" alice
mkdir -p "$C/bob" && variant "$C/bob/lab3.cu" bob "FAKE-POINTS: 6 3"
variant "$C/carol.cu" carol "FAKE-POINTS: 2 0" 'FAKE-MESSAGE: <script>alert("x")</script>, a "quoted", comma'
variant "$C/lines.cu" lines "FAKE-POINTS: 3 6" FAKE-LINES
mkdir -p "$T/src/dan/sub" && variant "$T/src/dan/sub/lab3.cu" dan && echo notes > "$T/src/dan/README"
(cd "$T/src" && python3 -c "import shutil; shutil.make_archive('$C/dan', 'zip', '.', 'dan')")
mkdir -p "$T/src/erin" && variant "$T/src/erin/lab3.cu" erin
tar -czf "$C/erin.tar.gz" -C "$T/src" erin
mkdir -p "$T/src/fay" && variant "$T/src/fay/lab3.cu" fay
tar -czf "$C/fay.tgz" -C "$T/src" fay
mkdir -p "$C/two/a" "$C/two/b" && variant "$C/two/a/lab3.cu" two && variant "$C/two/b/lab3.cu" two2
mkdir -p "$C/none" && echo x > "$C/none/lab1.cu"
mkdir -p "$C/hollow"
mkdir -p "$C/with space" && variant "$C/with space/lab3.cu" space
mkdir -p "$C/josé" && variant "$C/josé/lab3.cu" jose
mkdir -p "$C/gus" && variant "$C/gus/lab3.cu" gus
mkdir -p "$T/src/gus" && variant "$T/src/gus/lab3.cu" gus2 && tar -czf "$C/gus.tar.gz" -C "$T/src" gus
# names a spreadsheet would read as formulas: the gradebook keeps them as text
for f in "=1+2" "+1" "-1" "@SUM(A1)"; do mkdir -p "$C/$f" && variant "$C/$f/lab3.cu" formula; done
mkdir -p "$C/linky" && ln -s /etc/hostname "$C/linky/lab3.cu"
ln -s "$C/alice" "$C/toplink"
echo "hello" > "$C/notes.txt"
echo "hidden" > "$C/.DS_Store"
head -c 150000 /dev/zero | tr '\0' 'x' > "$C/bulky.cu"
python3 - "$C" <<'EOF'
import io, sys, tarfile, zipfile
C = sys.argv[1]
sol = b"// a lab3.cu\n"
def tgz(name, members):
    with tarfile.open(f"{C}/{name}.tar.gz", "w:gz") as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
def reg(path, data=sol):
    i = tarfile.TarInfo(path); i.size = len(data); return (i, data)
def link(path, target, kind=tarfile.SYMTYPE):
    i = tarfile.TarInfo(path); i.type = kind; i.linkname = target; return (i, None)
tgz("abs", [reg("/tmp/evil/lab3.cu")])
tgz("dotdot", [reg("x/../../lab3.cu")])
tgz("symout", [reg("s/lab3.cu"), link("s/passwd", "../../../etc/passwd")])
tgz("symabs", [reg("s/lab3.cu"), link("s/p", "/etc/passwd")])
tgz("hardout", [reg("h/lab3.cu"), link("h/p", "../../etc/passwd", tarfile.LNKTYPE)])
tgz("symin", [reg("k/real.cu"), link("k/lab3.cu", "real.cu")])
tgz("many", [reg("m/lab3.cu")] + [reg("m/f%d" % i, b"") for i in range(40)])
tgz("bomb", [reg("b/lab3.cu"), reg("b/zeros", b"\0" * 300000)])
with zipfile.ZipFile(f"{C}/zipdot.zip", "w") as z:
    z.writestr("../lab3.cu", sol)
# a zip bomb in small pieces: each entry under the cap, together over it (a zip is
# read compressed, so only the entries' sizes add up to what it unpacks to)
with zipfile.ZipFile(f"{C}/sum.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("t/lab3.cu", sol)
    for i in range(3):
        z.writestr("t/z%d" % i, b"\0" * 90000)
with zipfile.ZipFile(f"{C}/zipempty.zip", "w") as z:
    pass
open(f"{C}/junk.zip", "wb").write(b"this is not a zip file at all")
EOF
"$BATCH" "${FAKE[@]}" --max-source 100000 --max-archive 200000 --max-entries 30 lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
rc=$?
[ $rc = 0 ] && ok "batch exit 0" || { no "batch exit $rc"; cat "$T/run.log"; }
status_is alice graded 12
status_is bob graded 9
status_is carol graded 2
status_is dan graded 12
status_is erin graded 12
status_is fay graded 12
[ "$(field bob setRowReadColPad)" = 6 ] && [ "$(field bob setRowReadColDynPad)" = 3 ] && ok "bob: per-kernel columns 6, 3" || no "bob: kernel columns"
reason_has two "2 files could be lab3.cu (two/a/lab3.cu and two/b/lab3.cu): the export does not say which is the newest"
reason_has none "no lab3.cu in the folder none/"
reason_has hollow "empty folder hollow/"
# names with spaces and accents are fine: a safe id for files, the name kept
sp=$(id_of "with space"); jo=$(id_of "josé")
[[ $sp == with_space-[0-9a-f]* ]] && [[ $jo == jose-[0-9a-f]* ]] && ok "ids for 'with space' and 'josé': $sp, $jo" || no "ids: '$sp' '$jo'"
status_is "$sp" graded 12
status_is "$jo" graded 12
[ -f "$T/res/feedback/$sp.html" ] && grep -q "josé" "$T/res/feedback/$jo.txt" && ok "feedback files by id, the name inside" || no "feedback of $sp / $jo"
reason_has gus "duplicate student id 'gus' (entries gus, gus.tar.gz)"
reason_has linky "symbolic link"
reason_has toplink "is a symbolic link"
reason_has notes.txt "is not a submission"
reason_has bulky "over the cap of 100000"
reason_has abs "hostile archive abs.tar.gz"
reason_has dotdot "outside the archive's folder (absolute path or '..')"
reason_has symout "symbolic link 's/passwd' points outside"
reason_has symabs "points outside"
reason_has hardout "hard link 'h/p' points outside"
reason_has symin "is a link, not a file"
reason_has many "more than 30 entries"
reason_has bomb "more than 200000 bytes"
reason_has sum "more than 200000 bytes"
python3 - "$T/res/gradebook.csv" <<'EOF' && ok "names that look like formulas: the text, each with a leading ' in a quoted cell" || no "a name that is a formula in the gradebook"
import csv, sys
raw = open(sys.argv[1], newline="").read()
names = [r["name"] for r in csv.DictReader(raw.splitlines(keepends=True))]
want = ["'=1+2", "'+1", "'-1", "'@SUM(A1)"]
bad = [w for w in want if w not in names or '"%s"' % w not in raw]
bad += [v for r in csv.reader(raw.splitlines()) for v in r if v[:1] in ("=", "+", "-", "@")]
print("  ", bad) if bad else None
sys.exit(1 if bad else 0)
EOF
reason_has zipdot "hostile archive zipdot.zip"
reason_has zipempty "empty archive"
reason_has junk "not a readable archive"
[ "$(field .DS_Store status)" = "<missing>" ] && ok "hidden files are not submissions" || no ".DS_Store listed"
[ -e /tmp/evil/lab3.cu ] && no "an archive wrote outside" || ok "nothing unpacked outside"
grep -q "not usable" "$T/run.log" && grep -q "full marks       10" "$T/run.log" && ok "summary table" || { no "summary table"; cat "$T/run.log"; }
validate "$T/res"
want='        at lab3.cu:41  load  32-way (1024 wavefronts / 32 requests)'
grep -qxF "$want" "$T/res/feedback/lines.txt" && grep -qxF '        bank   0: lanes 0-31 (32-way)' "$T/res/feedback/lines.txt" \
    && grep -qF 'at lab3.cu:41  load  32-way' "$T/res/feedback/lines.html" && grep -qF 'at lab3.cu:41  load  32-way' "$T/res/gradescope/lines/results.json" \
    && grep -qF 'at lab3.cu:41  load  32-way' "$T/res/junit.xml" && grep -qE '"wavefronts":[[:space:]]*1024' "$T/res/lines.json" \
    && ok "the grader's source lines and bank map reach the feedback (text, HTML, Gradescope, JUnit) and the record" \
    || { no "lines and bank map lost"; sed -n '/store-conflicts/,+6p' "$T/res/feedback/lines.txt"; }
# a class of one student whose folder holds renamed lab files: that student, not a wrapper
mkdir -p "$T/one-student/zed" && variant "$T/one-student/zed/lab3 (1).cu" a && variant "$T/one-student/zed/Lab3 (2).cu" b
"$BATCH" "${FAKE[@]}" lab3 "$T/one-student" -o "$T/res-one" > "$T/run.log" 2>&1
reason_has zed "2 files could be lab3.cu (zed/Lab3 (2).cu and zed/lab3 (1).cu): the export does not say which is the newest" "$T/res-one"
grep -q '&lt;script&gt;' "$T/res/feedback/carol.html" && ! grep -q '<script>' "$T/res/feedback/carol.html" && ok "HTML escaped" || no "HTML not escaped"
# the summary's list of unusable submissions: reasons in one column whatever the
# names' widths (Zoë: 3 columns in 4 bytes; 李雷: 4 columns in 6 bytes)
mkdir -p "$T/wide/Zoë" "$T/wide/李雷" "$T/wide/bob"
touch "$T/wide/Zoë/a.txt" "$T/wide/李雷/a.txt" "$T/wide/bob/a.txt"
"$BATCH" "${FAKE[@]}" --plain lab3 "$T/wide" -o "$T/res-wide" > "$T/wide.log" 2>&1
python3 - "$T/wide.log" <<'PY' && ok "the summary's reasons line up after wide names (Zoë, 李雷)" || no "reasons misaligned: $(grep 'no lab3.cu' "$T/wide.log")"
import sys, unicodedata
cols = set()
for line in open(sys.argv[1], encoding="utf-8"):
    if "no lab3.cu in the folder" in line:
        head = line[:line.index("no lab3.cu")]
        cols.add(sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in head))
sys.exit(not (len(cols) == 1))
PY

batch_finish discovery
