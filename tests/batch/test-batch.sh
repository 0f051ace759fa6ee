#!/usr/bin/env bash
# test-batch.sh BUILD - smemlab-batch without a GPU (make check-batch).
#
# nvcc and the grader are faked (tests/batch/fake-nvcc, fake-grader) where a
# GPU or minutes of nvcc would be needed; real nvcc builds the compile-error
# cases, and the real grader shows the "not graded" path of a machine with no
# GPU. Sections: command line, discovery and hostile archives, sharing of
# identical sources, compile errors, time limit, resume and --only, kill -9 at
# random points (and what a killed run leaves, ended by the next), every report
# against its schema, checks neither passed nor failed, the grading machine's
# failures (never the student's), provenance, --slurm through a fake sbatch.
# BATCH_TESTS=discovery: the first two sections only (15 s; make check-mutants).
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=$(cd "$HERE/../.." && pwd)
BATCH=$KIT/$BUILD/smemlab-batch
GRADER=$KIT/$BUILD/smemlab-grade
T=$(mktemp -d /tmp/smemlab-test-batch.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp # scratch folders, and those a kill -9 leaves behind
mkdir -p "$TMPDIR"
FAKE=(--grader "$HERE/fake-grader" --nvcc "$HERE/fake-nvcc" --nvcc-arch=-fake --plain)
# Builds run in the jail, which passes nvcc no environment but what it is told
# (make's BUILD_KEEP_ENV) and lets it write nothing outside its build folder:
# the fake's sleep gets through; builds are counted by a make in front of the real one.
export BUILD_KEEP_ENV=FAKE_NVCC_SLEEP
REAL_MAKE=$(command -v make)
mkdir -p "$T/bin"
printf '#!/bin/bash\ncase " $* " in *" lab-lib "*) [ -n "${MAKE_LOG:-}" ] && echo "$*" >> "$MAKE_LOG";; esac\nexec %s "$@"\n' \
    "$REAL_MAKE" > "$T/bin/make"
chmod +x "$T/bin/make"
KERNELS=(setRowReadColPad setRowReadColDynPad)
case ${BATCH_TESTS:-} in ""|discovery) ;; *) echo "BATCH_TESTS=$BATCH_TESTS: empty (all) or discovery" >&2; exit 2;; esac
fails=0 passes=0

ok() { passes=$((passes + 1)); echo "  ok    $*"; }
no() { fails=$((fails + 1)); echo "  FAIL  $*"; }
expect() { # expect DESCRIPTION COMMAND...: the command succeeds
    local d=$1; shift
    if "$@"; then ok "$d"; else no "$d"; fi
}
# field STUDENT COLUMN [RESULTS]: a gradebook field (python's csv, RFC 4180)
field() {
    python3 - "$1" "$2" "${3:-$T/res}/gradebook.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
print(next((r[sys.argv[2]] for r in rows if r["student"] == sys.argv[1]), "<missing>"))
EOF
}
id_of() { # id_of NAME [RESULTS]: the student id the gradebook gives a name
    python3 - "$1" "${2:-$T/res}/gradebook.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
print(next((r["student"] for r in rows if r["name"] == sys.argv[1]), "<missing>"))
EOF
}
reason_has() { # reason_has STUDENT TEXT [RESULTS]
    local got; got=$(field "$1" reason "${3:-$T/res}")
    if [[ $got == *"$2"* ]]; then ok "$1: $2"; else no "$1: want '$2' in the reason, got '$got'"; fi
}
status_is() { # status_is STUDENT STATUS POINTS [RESULTS]
    local s p; s=$(field "$1" status "${4:-$T/res}"); p=$(field "$1" points "${4:-$T/res}")
    if [ "$s" = "$2" ] && [ "$p" = "$3" ]; then ok "$1: $2 $3"; else no "$1: want $2 $3, got $s $p"; fi
}
validate() { # validate RESULTS [LAB KERNEL...]: every format against its schema (default: lab 3's)
    local results=$1
    shift
    [ $# -gt 0 ] || set -- lab3 "${KERNELS[@]}"
    if python3 "$HERE/validate.py" "$results" "$@" > "$T/validate.log" 2>&1 &&
       xmllint --noout --schema "$HERE/junit.xsd" "$results/junit.xml" 2>> "$T/validate.log"; then
        ok "reports valid: $(tail -n1 "$T/validate.log")"
    else
        no "reports invalid:"; cat "$T/validate.log"
    fi
}
SOL=$KIT/labs/lab3-padding/lab3.cu # any lab 3 file: the fake grader reads only its markers
SKEL=$KIT/labs/lab3-padding/lab3.cu
variant() { cp "$SOL" "$1"; printf '// %s\n' "${@:2}" >> "$1"; }

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

if [ "${BATCH_TESTS:-}" = discovery ]; then
    echo "batch tests (command line and discovery only): $passes passed, $fails failed"
    [ $fails = 0 ]; exit
fi
echo "[$SECONDS s] == identical sources are built and graded once"
S=$T/same
mkdir -p "$S"
for s in ann ben cid; do cp "$SOL" "$S/$s.cu"; done
variant "$S/dee.cu" dee
PATH=$T/bin:$PATH MAKE_LOG=$T/nvcc.log FAKE_GRADER_LOG=$T/grader.log \
    "$BATCH" "${FAKE[@]}" lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ "$(wc -l < "$T/nvcc.log")" = 2 ] && [ "$(wc -l < "$T/grader.log")" = 2 ] && ok "4 submissions, 2 sources: 2 builds, 2 gradings" \
    || no "builds $(wc -l < "$T/nvcc.log"), gradings $(wc -l < "$T/grader.log")"
for s in ann ben cid dee; do status_is $s graded 12 "$T/res-same"; done

echo "[$SECONDS s] == re-run, --regrade, --only, a changed source"
rm -f "$T/grader.log"
FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ ! -e "$T/grader.log" ] && grep -q "0 to grade, 4 already recorded" "$T/run.log" && ok "re-run grades nothing" || no "re-run graded again"
FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --only dee lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ "$(wc -l < "$T/grader.log")" = 1 ] && [ "$(tail -n +2 "$T/res-same/gradebook.csv" | wc -l)" = 4 ] && ok "--only dee: 1 graded, 4 in the gradebook" || no "--only"
variant "$S/ben.cu" ben "FAKE-POINTS: 0 6"
FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ "$(wc -l < "$T/grader.log")" = 2 ] && ok "a changed source is graded again" || no "changed source"
status_is ben graded 6 "$T/res-same"
FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ "$(wc -l < "$T/grader.log")" = 5 ] && ok "--regrade: 3 sources graded again" || no "--regrade: $(wc -l < "$T/grader.log")"

"$BATCH" "${FAKE[@]}" --progress --regrade --only dee lab3 "$S" -o "$T/res-same" > "$T/out" 2> "$T/err"
grep -q "\[1/1\] .*/s, ETA 0:00 - dee: graded" "$T/err" && ! grep -q "^\[1/1\]" "$T/out" && ok "--progress: one progress line with rate and ETA" || no "--progress: $(cat "$T/err")"
echo "[$SECONDS s] == two GPUs: one grader each"
rm -f "$T/grader.log"
FAKE_GRADER_SLEEP=0.3 FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade --gpus 0,1 lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
grep -q "device 0" "$T/grader.log" && grep -q "device 1" "$T/grader.log" && ok "--gpus 0,1 grades on both" || no "--gpus: $(cat "$T/grader.log")"

echo "[$SECONDS s] == a meter server per GPU, and the graders sent to it"
rm -f "$T/meter.log"
FAKE_METER_LOG=$T/meter.log "$BATCH" "${FAKE[@]}" --regrade --gpus 0,1 lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
sock0=$(awk '$1 == "serve" && $3 == 0 {print $4}' "$T/meter.log")
sock1=$(awk '$1 == "serve" && $3 == 1 {print $4}' "$T/meter.log")
strays=$(awk -v s0="$sock0" -v s1="$sock1" '$1 == "grade" && !(($3 == 0 && $4 == s0) || ($3 == 1 && $4 == s1))' "$T/meter.log")
[ "$(grep -c '^serve' "$T/meter.log")" = 2 ] && [ -n "$sock0" ] && [ -n "$sock1" ] && [ "$sock0" != "$sock1" ] &&
    [ "$(grep -c '^grade' "$T/meter.log")" = 3 ] && [ -z "$strays" ] &&
    ok "--gpus 0,1: one meter server a GPU, each grader given its GPU's socket" || no "meter servers: $(cat "$T/meter.log")"
! pgrep -f -- "--serve-meter $sock0" > /dev/null && ok "the meter servers end with the batch" || no "a meter server outlived the batch"
rm -f "$T/meter.log"
FAKE_METER_LOG=$T/meter.log "$BATCH" "${FAKE[@]}" --regrade --no-meter-server lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
! grep -q '^serve' "$T/meter.log" && [ "$(grep -c '^grade device 0 -$' "$T/meter.log")" = 3 ] &&
    ok "--no-meter-server: no server, graders measure by themselves" || no "--no-meter-server: $(cat "$T/meter.log")"
rm -f "$T/meter.log"
FAKE_METER_EXIT=1 FAKE_METER_LOG=$T/meter.log "$BATCH" "${FAKE[@]}" --regrade lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ "$(grep -c '^serve' "$T/meter.log")" = 3 ] && grep -q "the meter server of GPU 0 keeps ending (last it said: fake-grader: cannot serve here); graders measure by themselves" "$T/run.log" &&
    [ "$(for s in ann ben cid dee; do field $s status "$T/res-same"; done | grep -c '^graded$')" = 4 ] &&
    ok "a meter server that keeps ending: started 3 times, then the graders measure by themselves" || no "server that ends: $(cat "$T/meter.log" "$T/run.log")"

echo "[$SECONDS s] == graders per GPU: side by side, taking turns on the GPU"
P=$T/pergpu
mkdir -p "$P"
for i in 1 2 3 4 5 6; do variant "$P/p$i.cu" "p$i"; done
for n in 1 3; do
    rm -f "$T/running"
    # -j 6 and 1 s a turn: all six are built before the first turn ends,
    # so the slots fill however slow the machine is
    FAKE_GRADER_SLEEP=1 FAKE_GRADER_RUNNING=$T/running FAKE_GRADER_LOCK=$T/gpu.lock \
        "$BATCH" "${FAKE[@]}" -j 6 --regrade --graders-per-gpu $n lab3 "$P" -o "$T/res-per" > "$T/run.log" 2>&1
    most=$(cut -d' ' -f2 "$T/running")
    [ "$most" = $n ] && grep -q "1 GPU x $n grader$([ $n = 1 ] || echo s) with" "$T/run.log" && ok "--graders-per-gpu $n: at most $most graders at once" \
        || no "--graders-per-gpu $n: $most at once; $(grep Timing "$T/run.log")"
done
for i in 1 2 3 4 5 6; do status_is "p$i" graded 12 "$T/res-per"; done

echo "[$SECONDS s] == the time limit counts from the grader's turn on the GPU"
H=$T/turns
mkdir -p "$H"
variant "$H/a-hog.cu" hog FAKE-HANG
variant "$H/b-next.cu" next
# -j 1: a-hog is built and takes the GPU first; b-next waits 3 s for it, then
# needs 1 s: over 3 s from its start, within 3 s of its turn.
FAKE_NVCC_SLEEP=0.5 FAKE_GRADER_SLEEP=1 FAKE_GRADER_LOCK=$T/gpu2.lock \
    "$BATCH" "${FAKE[@]}" -j 1 --graders-per-gpu 2 --time-limit 3 lab3 "$H" -o "$T/res-turns" > "$T/run.log" 2>&1
reason_has a-hog "grading took longer than the limit of 3 s (killed)" "$T/res-turns"
status_is b-next graded 12 "$T/res-turns"
# another grader that keeps the GPU: the lock is held by the sleep itself, so
# killing it frees the GPU and leaves no process holding this script's output
( exec 9> "$T/gpu3.lock"; flock 9; exec sleep 1000 ) > /dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do flock -n "$T/gpu3.lock" true || break; sleep 0.1; done # held now
FAKE_GRADER_LOCK=$T/gpu3.lock "$BATCH" "${FAKE[@]}" --graders-per-gpu 1 --time-limit 2 lab3 "$H" -o "$T/res-held" > "$T/run.log" 2>&1
rc=$?
kill $holder; wait $holder 2> /dev/null
[ $rc = 1 ] && ok "GPU never free: exit 1" || no "GPU never free: exit $rc"
reason_has b-next "not graded: its grader did not get GPU 0 within 2 s (other graders kept it busy); run the batch again" "$T/res-held"
[ "$(field b-next status "$T/res-held")" = not-graded ] && ok "not the student's fault: not-graded, graded on the next run" || no "status $(field b-next status "$T/res-held")"

echo "[$SECONDS s] == time limit, crash, not graded"
L=$T/limits
mkdir -p "$L"
variant "$L/hang.cu" hang FAKE-HANG
variant "$L/crash.cu" crash FAKE-CRASH
variant "$L/nogpu.cu" nogpu "FAKE-NOT-GRADED: no GPU here"
variant "$L/broken.cu" broken FAKE-COMPILE-ERROR
variant "$L/offcontract.cu" offcontract "FAKE-NOT-GRADED: lab3.so sets IPAD to 3, but the contract fixes it at 1" FAKE-CONTRACT
start=$(date +%s)
FAKE_GRADER_PIDS=$T/pids "$BATCH" "${FAKE[@]}" --time-limit 6 lab3 "$L" -o "$T/res-lim" > "$T/run.log" 2>&1
rc=$?
[ $rc = 1 ] && ok "exit 1: some not graded" || no "exit $rc"
[ $(( $(date +%s) - start )) -lt 30 ] && ok "the hang cost the limit, not more" || no "took $(( $(date +%s) - start )) s"
reason_has hang "grading took longer than the limit of 6 s (killed)" "$T/res-lim"
alive=0 # a zombie nobody reaps (no init in a container) counts as gone
for p in $(cat "$T/pids" 2>/dev/null); do case $(ps -o stat= -p "$p") in ""|Z*) ;; *) alive=1;; esac; done
[ -s "$T/pids" ] && [ $alive = 0 ] && ok "the grader's process group is gone" || no "grader processes left: $(cat "$T/pids")"
reason_has crash "the grader died (signal 11)" "$T/res-lim"
reason_has nogpu "not graded: no GPU here" "$T/res-lim"
status_is broken not-compiled 0 "$T/res-lim"
want="does not compile: lab3.cu:$(grep -n FAKE-COMPILE-ERROR "$L/broken.cu" | cut -d: -f1): expected an expression"
[ "$(field broken reason "$T/res-lim")" = "$want" ] && ok "compile error: '$want' (scratch path gone)" || no "compile error reason: $(field broken reason "$T/res-lim")"
grep -q "grading took longer" "$T/run.log" && grep -q "not graded          3" "$T/run.log" && ok "summary says why" || { no "summary"; cat "$T/run.log"; }
status_is offcontract rejected 0 "$T/res-lim"
reason_has offcontract "breaks the lab's contract: lab3.so sets IPAD to 3, but the contract fixes it at 1" "$T/res-lim"
grep -A1 -q "not usable          1" "$T/run.log" && ok "a broken contract is the student's: rejected (not usable), not the machine's not-graded" || no "contract: $(grep -A1 "not usable" "$T/run.log")"
"$BATCH" "${FAKE[@]}" --time-limit 6 lab3 "$L" -o "$T/res-lim" > "$T/rerun.log" 2>&1
grep -q "2 to grade, 3 already recorded" "$T/rerun.log" && ok "a re-run keeps it (final), as it keeps a compile error" || no "re-run: $(head -1 "$T/rerun.log")"
validate "$T/res-lim"

echo "[$SECONDS s] == kill -9 at random points, re-run: the same gradebook"
K=$T/kill
mkdir -p "$K"
for i in $(seq 1 16); do variant "$K/s$i.cu" "s$i" "FAKE-POINTS: $((i % 7)) $(( (i * 5) % 7 ))"; done
variant "$K/bad.cu" bad FAKE-COMPILE-ERROR
cp "$K/s3.cu" "$K/twin.cu"
export FAKE_GRADER_SLEEP=0.05 FAKE_NVCC_SLEEP=0.05
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-ref" > /dev/null 2>&1
kills=0 partial=0 prev=0 total=$(ls "$K" | wc -l)
for round in $(seq 1 16); do
    "$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-kill" > /dev/null 2>&1 &
    pid=$!
    # Half the rounds die at a random moment of the first second (discovery,
    # first builds); the others once this run has recorded something new, a
    # random 0-0.2 s later (mid-build, mid-grading, mid-write): however fast
    # or slow the machine, every round both makes progress and is cut short
    # (a longer wait let a fast machine finish the class in the second round).
    if [ $((round % 2)) = 1 ]; then
        sleep "0.$(( RANDOM % 10 ))"
    else
        for _ in $(seq 1 600); do
            [ "$(ls "$T"/res-kill/*.json 2>/dev/null | wc -l)" -gt "$prev" ] && break
            kill -0 $pid 2>/dev/null || break
            sleep 0.05
        done
        sleep "0.$(( RANDOM % 3 ))"
    fi
    killed=
    kill -9 $pid 2>/dev/null && kills=$((kills + 1)) && killed=1
    wait $pid 2>/dev/null
    for f in "$T"/res-kill/*.json; do
        [ -e "$f" ] || continue
        python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f" 2>/dev/null || { no "round $round: $f is not whole JSON"; break; }
    done
    got=$(ls "$T"/res-kill/*.json 2>/dev/null | wc -l)
    [ "$got" -gt "$prev" ] && [ "$got" -lt "$total" ] && [ -n "$killed" ] && partial=$((partial + 1))
    prev=$got
    [ "$got" = "$total" ] && break
done
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-kill" > /dev/null 2>&1
unset FAKE_GRADER_SLEEP FAKE_NVCC_SLEEP
[ $partial -ge 2 ] && ok "$kills runs killed with -9, $partial of them part way through the class" || no "only $partial of $kills killed runs were part way: the test proves nothing"
cmp -s "$T/res-ref/gradebook.csv" "$T/res-kill/gradebook.csv" && ok "gradebook after kills = uninterrupted gradebook ($(($(wc -l < "$T/res-ref/gradebook.csv") - 1)) students)" \
    || { no "gradebooks differ"; diff "$T/res-ref/gradebook.csv" "$T/res-kill/gradebook.csv"; }
ls -a "$T/res-kill" | grep -q '\.tmp\.' && no "temporary files left" || ok "no temporary files left"
left=$(ls -d "$TMPDIR"/smemlab-batch.* 2> /dev/null)
[ -z "$left" ] && ok "no scratch folder left by the killed runs (each next run removed the last one's)" || no "scratch folders left: $left"

echo "[$SECONDS s] == a run killed with -9 mid-build: the next one ends its builds and removes its scratch folder"
mkdir -p "$T/slow" && variant "$T/slow/a.cu" a && variant "$T/slow/b.cu" b
FAKE_NVCC_SLEEP=60 "$BATCH" "${FAKE[@]}" -j 2 lab3 "$T/slow" -o "$T/res-slow" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do pgrep -f "smemlab-build-jail.*$TMPDIR/smemlab-batch" > /dev/null && break; sleep 0.05; done
sleep 0.5
kill -9 $pid; wait $pid 2> /dev/null
old=$(ls -d "$TMPDIR"/smemlab-batch.* 2> /dev/null)
builds=$(pgrep -f -- "$old" | wc -l)
# their process groups: the compilers' children (fake-nvcc's sleep) name no scratch folder
groups=$(for p in $(pgrep -f -- "$old"); do ps -o pgid= -p "$p"; done | sort -u | tr -d ' ' | paste -sd,)
t0=$SECONDS
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$T/slow" -o "$T/res-slow" > "$T/run.log" 2>&1
sleep 0.2
# (a zombie nobody reaps, with no init in a container, counts as gone)
stray=$(ps -e -o pid=,pgid=,stat=,args= | awk -v g=",$groups," -v old="$old" \
    '$3 !~ /^Z/ && (index(g, "," $2 ",") || index($0, old))' | grep -v awk)
[ -n "$old" ] && [ "$builds" -gt 0 ] && [ ! -e "$old" ] && [ -z "$stray" ] && grep -q "An earlier run was killed: ended [0-9]* of its processes and removed its scratch folder" "$T/run.log" \
    && [ "$(field a status "$T/res-slow")" = graded ] && [ $((SECONDS - t0)) -lt 30 ] \
    && ok "killed mid-build ($builds processes still building in its scratch folder): the next run ended them, removed the folder and its socket, and graded the class" \
    || no "leftovers: old '$old', $builds building, stray: $stray; $(head -3 "$T/run.log")"

echo "[$SECONDS s] == compile errors with the real nvcc; the real grader without a GPU (emulated)"
if command -v "${NVCC:-nvcc}" > /dev/null; then
    R=$T/real
    mkdir -p "$R" "$T/secret"
    echo 'TOP SECRET exam answers' > "$T/secret/answers.h"
    cp "$SKEL" "$R/sam.cu"
    { cat "$SKEL"; echo "int x = ;"; } > "$R/syn.cu"
    line=$(grep -n 'int x = ;' "$R/syn.cu" | cut -d: -f1)
    { echo "#include \"$T/secret/answers.h\""; cat "$SKEL"; } > "$R/peek.cu"
    "$BATCH" --plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 lab3 "$R" -o "$T/res-real" > "$T/run.log" 2>&1
    rc=$?
    [ "$(field syn reason "$T/res-real")" = "does not compile: lab3.cu:$line: expected an expression" ] \
        && ok "nvcc error: $(field syn reason "$T/res-real")" || no "nvcc error: $(field syn reason "$T/res-real")"
    reason_has peek "lab3.cu includes a file outside your submission: only smemlab.h and system headers may be included (it names \"$T/secret/answers.h\")" "$T/res-real"
    # the path appears as the student wrote it, in peek's reason alone; the content nowhere
    grep -rq "TOP SECRET" "$T/res-real" && no "another file's content leaked" || ok "no other file's content in the results"
    [ "$(grep -rl "$T/secret" "$T/res-real" | grep -v '/peek\.\(json\|txt\|html\)$\|/peek/results.json$\|gradebook.csv$\|junit.xml$' | wc -l)" = 0 ] \
        && ok "the outside path is named only in peek's own reports" || no "the outside path leaked into others' reports"
    grep -rq "smemlab-batch\.[A-Za-z0-9]\{6\}\|$TMPDIR" "$T/res-real" && no "scratch path leaked: $(grep -rho "smemlab-batch\.[A-Za-z0-9]\{6\}[^ ]*" "$T/res-real" | head -1)" \
        || ok "no scratch path in any report (records, feedback, Gradescope, Autolab, JUnit, gradebook)"
    grep -qF "lab3.cu($line): error: expected an expression" "$T/res-real/feedback/syn.txt" && grep -qxF "  int x = ;" "$T/res-real/feedback/syn.txt" \
        && ! grep -q "secret\|answers" "$T/res-real/feedback/syn.txt" && ok "a compile error: the compiler's first lines about the file in the feedback" \
        || { no "compile error lines"; cat "$T/res-real/feedback/syn.txt"; }
    # no launcher at all: the grader names the library it was given; the student reads no scratch path
    printf '// nothing but a comment\n' > "$R/bare.cu"
    "$BATCH" --plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 --only bare lab3 "$R" -o "$T/res-real" > "$T/run.log" 2>&1
    grep -q "launch_setRowReadColPad not found in lab3.so" "$T/res-real/feedback/bare.txt" && ! grep -rq "smemlab-batch\." "$T/res-real" \
        && ok "a file without launchers: 'not found in lab3.so', no scratch path" || { no "bare: $(grep -m2 'not found' "$T/res-real/feedback/bare.txt")"; }
    # --nvcc as a path relative to where the batch was started (make runs it from the kit)
    mkdir -p "$T/relnv/bin" && ln -sf "$(command -v nvcc)" "$T/relnv/bin/nvcc"
    (cd "$T/relnv" && "$BATCH" --plain --grader "$GRADER" --nvcc bin/nvcc --nvcc-arch=-arch=sm_75 --only syn lab3 "$R" -o "$T/res-relnv" > "$T/run.log" 2>&1)
    [ "$(field syn reason "$T/res-relnv")" = "does not compile: lab3.cu:$line: expected an expression" ] \
        && ok "--nvcc bin/nvcc, a relative path: built with it" || no "--nvcc bin/nvcc: $(field syn reason "$T/res-relnv")"
    if nvidia-smi > /dev/null 2>&1; then
        echo "  skip  (a GPU is present: the no-GPU path is not tested here)"
    else
        # no GPU: the grader emulates, so the skeleton is graded and loses points
        [ $rc = 0 ] && [ "$(field sam status "$T/res-real")" = graded ] && ok "no GPU: exit 0, sam graded by emulation" || no "no GPU: exit $rc, $(field sam status "$T/res-real")"
        reason_has sam "checks failed" "$T/res-real"
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r['grader_exit'] == 1 and r['points'] < r['max_points']))" "$T/res-real/sam.json" \
            && ok "the grader's own exit status recorded (1: the skeleton loses points)" || no "grader_exit"
    fi
    validate "$T/res-real"
    # a graded student's HTML feedback links the grader's report page of their file; one
    # that did not compile has none to link
    sha=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['sha256'])" "$T/res-real/sam.json")
    page=$T/res-real/pages/$sha.html
    grep -qF "href=\"../pages/$sha.html\"" "$T/res-real/feedback/sam.html" && [ -s "$page" ] &&
        grep -qF '<section id="source"' "$page" && grep -qF 'id="k-setRowReadColPad"' "$page" &&
        ! grep -qF "../pages/" "$T/res-real/feedback/syn.html" &&
        ok "sam's feedback links the page of sam's file (pages/${sha:0:12}...html); syn's, not compiled, none" ||
        no "the report page of sam: $(ls "$T/res-real/pages" 2>&1 | head -3)"
    # labs 7 to 10 through the real batch: a solution and a skeleton each (the
    # student kit has no solutions: nothing to hold the skeleton against)
    for lab in lab7 lab8 lab9 lab10; do
        speed=3; [ $lab = lab9 ] && speed=4 # the points a GPU alone measures
        if ! ls "$KIT"/solutions/$lab-*/$lab.cu > /dev/null 2>&1; then
            echo "  skip  $lab through the batch (no solutions/ here: the student kit)"
            continue
        fi
        L=$T/real-$lab
        mkdir -p "$L"
        cp "$KIT"/solutions/$lab-*/$lab.cu "$L/sol.cu"
        cp "$KIT"/labs/$lab-*/$lab.cu "$L/skel.cu"
        "$BATCH" --plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 $lab "$L" -o "$T/res-$lab" > "$T/run.log" 2>&1
        if nvidia-smi > /dev/null 2>&1; then
            python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(not (a['status'] == 'graded' and a['points'] == a['max_points'] > 0 and b['points'] < b['max_points']))" \
                "$T/res-$lab/sol.json" "$T/res-$lab/skel.json" \
                && ok "$lab through the batch: the solution full marks, the skeleton less" || no "$lab through the batch: $(head -3 "$T/run.log")"
        else
            python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(not (a['status'] == b['status'] == 'graded' and a['points'] == a['max_points'] - int(sys.argv[3]) and b['points'] < a['points']))" \
                "$T/res-$lab/sol.json" "$T/res-$lab/skel.json" $speed \
                && ok "$lab through the batch, emulated: the solution all but speed's $speed points, the skeleton less" \
                || no "$lab through the batch: $(python3 -c "import json,sys; print([(x, json.load(open(sys.argv[1]+'/'+x+'.json'))['points']) for x in ('sol','skel')])" "$T/res-$lab")"
        fi
        validate "$T/res-$lab" $lab $("$GRADER" --list | awk -v lab=$lab '/^lab[0-9]/ { on = $1 == lab; next } on { print $1 }')
    done
else
    echo "  skip  (no nvcc)"
fi

echo "[$SECONDS s] == checks neither passed nor failed: counted apart, never a pass; grammar; provenance"
A=$T/apart
mkdir -p "$A"
variant "$A/nm.cu" nm "FAKE-APART: not-measured" FAKE-EMULATED
variant "$A/ng.cu" ng "FAKE-APART: not-graded"
variant "$A/odd.cu" odd "FAKE-APART: newfangled"
variant "$A/one.cu" one "FAKE-POINTS: 5 6"
echo "// PREDICT setRowReadColPad load 2" >> "$A/one.cu"
"$BATCH" "${FAKE[@]}" lab3 "$A" -o "$T/res-apart" > "$T/run.log" 2>&1
reason_has nm "2 checks not measured: setRowReadColPad load-conflicts, setRowReadColDynPad load-conflicts" "$T/res-apart"
reason_has ng "2 checks not graded: setRowReadColPad load-conflicts" "$T/res-apart"
reason_has odd "2 checks with the status 'newfangled'" "$T/res-apart"
[ "$(field one reason "$T/res-apart")" = "1 check failed" ] && ok "one: '1 check failed' (not '1 checks')" || no "one: $(field one reason "$T/res-apart")"
status_is odd graded 10 "$T/res-apart"
grep -q "^  N/G   load-conflicts" "$T/res-apart/feedback/ng.txt" && grep -q "^  ?     load-conflicts" "$T/res-apart/feedback/odd.txt" \
    && python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["tests"]; sys.exit(not any(x["name"].endswith("load-conflicts") and x["status"] == "failed" for x in t))' "$T/res-apart/gradescope/odd/results.json" \
    && grep -q "(3 with checks not measured or not graded" "$T/run.log" \
    && grep -q "^    failed checks     1$" "$T/run.log" \
    && grep -A1 -q "^Your predictions (no points):" "$T/res-apart/feedback/one.txt" \
    && grep -q "^setRowReadColPad load 2: judged$" "$T/res-apart/feedback/one.txt" \
    && ok "not-graded is N/G, an unknown status '?', failed in Gradescope, counted apart in the summary (failed checks: one alone); the PREDICT lines in the feedback" || no "apart: $(grep -A1 'failed checks' "$T/run.log")"
[ "$(field nm provenance "$T/res-apart")" = "emulated on the CPU: no GPU found; speed not measured" ] &&
    [ "$(field one provenance "$T/res-apart")" = "trace on NVIDIA H100 80GB HBM3, sm_90" ] &&
    grep -q "graded by         3  trace on NVIDIA H100 80GB HBM3, sm_90" "$T/run.log" && grep -q "graded by         1  emulated on the CPU" "$T/run.log" &&
    grep -q "1 GPU x 3 graders with a meter server each; some emulated on the CPU" "$T/run.log" &&
    ok "provenance from each grader's device line: the column, the summary, the timing line" || no "provenance: $(grep -A3 'graded by\|Timing' "$T/run.log")"
# speed-only re-grades: --regrade-not-measured grades again those with checks not measured
rm -f "$T/grader.log"
FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade-not-measured lab3 "$A" -o "$T/res-apart" > "$T/run.log" 2>&1
[ "$(wc -l < "$T/grader.log")" = 3 ] && grep -q "3 to grade, 1 already recorded" "$T/run.log" \
    && ok "--regrade-not-measured: the 3 with checks apart graded again, the one that failed plainly kept" || no "--regrade-not-measured: $(cat "$T/grader.log"; head -1 "$T/run.log")"

echo "[$SECONDS s] == the grading machine's failures: never the student's"
E=$T/env
mkdir -p "$E" && variant "$E/eve.cu" eve
# make cannot even enter the kit (what a 0700 folder does to another user)
mkdir -p "$T/badmake"
printf '#!/bin/sh\ncase " $* " in *" lab-lib "*) echo "make: *** /srv/kit: Permission denied.  Stop." >&2; exit 2;; esac\nexec %s "$@"\n' "$REAL_MAKE" > "$T/badmake/make"
chmod +x "$T/badmake/make"
PATH=$T/badmake:$PATH "$BATCH" "${FAKE[@]}" lab3 "$E" -o "$T/res-env1" > "$T/run.log" 2>&1
rc=$?
[ $rc = 1 ] && [ "$(field eve status "$T/res-env1")" = not-graded ] && ok "make fails before any compiler: exit 1, not-graded" || no "bad make: exit $rc, $(field eve status "$T/res-env1")"
reason_has eve "not graded: the grading machine could not run the build (make lab-lib in $KIT, status 2: make: *** /srv/kit: Permission denied.  Stop.)" "$T/res-env1"
# the toolchain is missing: the jail says so
"$BATCH" --grader "$HERE/fake-grader" --nvcc /nonexistent/nvcc --nvcc-arch=-fake --plain lab3 "$E" -o "$T/res-env2" > "$T/run.log" 2>&1
reason_has eve "not graded: the grading machine could not build it: cannot find /nonexistent/nvcc on PATH: install the CUDA Toolkit" "$T/res-env2"
# a library of the toolchain will not load
printf '#!/bin/sh\necho "nvcc: error while loading shared libraries: libnvvm.so.4: cannot open shared object file" >&2\nexit 127\n' > "$T/badmake/nvcc"
chmod +x "$T/badmake/nvcc"
"$BATCH" --grader "$HERE/fake-grader" --nvcc "$T/badmake/nvcc" --nvcc-arch=-fake --plain lab3 "$E" -o "$T/res-env3" > "$T/run.log" 2>&1
reason_has eve "not graded: the grading machine could not build it: the compiler stopped (status 127) without naming an error in lab3.cu (it said: nvcc: error while loading shared libraries: libnvvm.so.4" "$T/res-env3"
[ "$(field eve status "$T/res-env3")" = not-graded ] && ! grep -q "does not compile" "$T/res-env3/gradebook.csv" && ok "a broken toolchain: not-graded, never 'does not compile'" || no "broken toolchain: $(field eve status "$T/res-env3")"
# a grader that cannot run (a library it needs will not load)
printf '#!/bin/sh\necho "smemlab-grade: error while loading shared libraries: libcjson.so.1: cannot open shared object file" >&2\nexit 127\n' > "$T/badmake/grader"
chmod +x "$T/badmake/grader"
"$BATCH" --grader "$T/badmake/grader" --nvcc "$HERE/fake-nvcc" --nvcc-arch=-fake --plain --no-meter-server lab3 "$E" -o "$T/res-env4" > "$T/run.log" 2>&1
reason_has eve "not graded: the grading machine could not run the grader (exit status 127, no results; it said: smemlab-grade: error while loading shared libraries: libcjson.so.1" "$T/res-env4"
"$BATCH" "${FAKE[@]}" lab3 "$E" -o "$T/res-env4" > "$T/run.log" 2>&1
status_is eve graded 12 "$T/res-env4"
grep -q "1 to grade" "$T/run.log" && ok "not the student's fault: the next run grades it" || no "next run: $(head -1 "$T/run.log")"

echo "[$SECONDS s] == --slurm through a fake sbatch"
FAKE_SBATCH_ARGS=$T/sbatch.args "$BATCH" "${FAKE[@]}" -j 2 --slurm --chunk-size 3 --sbatch "$HERE/fake-sbatch" \
    --sbatch-arg=--partition=gpu lab3 "$K" -o "$T/res-slurm" > "$T/run.log" 2>&1
rc=$?
[ $rc = 0 ] && ok "slurm run exit 0" || { no "slurm exit $rc"; cat "$T/run.log"; }
grep -q -- "--partition=gpu" "$T/sbatch.args" && ok "--sbatch-arg passed on" || no "sbatch args: $(cat "$T/sbatch.args")"
grep -q -- "^#SBATCH --cpus-per-task=2$" "$T/res-slurm/.slurm/job.sh" && grep -q -- " -j 2 " "$T/res-slurm/.slurm/job.sh" && ok "-j 2: 2 cores per task" || no "job.sh: $(cat "$T/res-slurm/.slurm/job.sh")"
[ "$(ls "$T/res-slurm/.slurm"/chunk-*.txt | wc -l)" = 6 ] && ok "18 submissions in 6 chunks of 3" || no "chunks: $(ls "$T/res-slurm/.slurm")"
# one formula: chunk x (--time-limit + 3 x --build-timeout) s, in minutes rounded up, + 5
! grep -q -- "--gres" "$T/res-slurm/.slurm/job.sh" && grep -qx -- "#SBATCH --time=38" "$T/res-slurm/.slurm/job.sh" \
    && ok "no GPU asked for (a CPU partition grades by emulation); --time=38 = ceil(3 x (300 + 360) / 60) + 5" || no "job.sh: $(grep SBATCH "$T/res-slurm/.slurm/job.sh")"
"$BATCH" "${FAKE[@]}" --slurm --slurm-gpu --regrade --chunk-size 7 --time-limit 100 --build-timeout 20 --sbatch "$HERE/fake-sbatch" lab3 "$K" -o "$T/res-slurm-gpu" > "$T/run.log" 2>&1
grep -qx -- "#SBATCH --gres=gpu:1" "$T/res-slurm-gpu/.slurm/job.sh" && grep -qx -- "#SBATCH --time=24" "$T/res-slurm-gpu/.slurm/job.sh" \
    && ok "--slurm-gpu: --gres=gpu:1; --time=24 = ceil(7 x (100 + 60) / 60) + 5" || no "job.sh with --slurm-gpu: $(grep SBATCH "$T/res-slurm-gpu/.slurm/job.sh")"
cmp -s "$T/res-ref/gradebook.csv" "$T/res-slurm/gradebook.csv" && ok "slurm gradebook = local gradebook" || { no "slurm gradebook differs"; diff "$T/res-ref/gradebook.csv" "$T/res-slurm/gradebook.csv"; }
FAKE_SBATCH_DROP=1 "$BATCH" "${FAKE[@]}" --slurm --regrade --chunk-size 3 --sbatch "$HERE/fake-sbatch" lab3 "$K" -o "$T/res-slurm" > "$T/run.log" 2>&1
rc=$?
lost=$(sed -n 2p "$T/res-slurm/.slurm/chunk-1.txt"); lost=${lost%.cu}
[ $rc = 1 ] && ok "a lost task: exit 1" || no "lost task: exit $rc"
reason_has "$lost" "not graded: Slurm array task 1 returned no result" "$T/res-slurm"
[ "$(grep -c 'returned no result' "$T/res-slurm/gradebook.csv")" = 3 ] && ok "exactly the 3 of task 1 are lost" || no "lost: $(grep -c 'returned no result' "$T/res-slurm/gradebook.csv")"
validate "$T/res-slurm"
before=$(cat "$T/res-slurm/gradebook.csv")
"$BATCH" "${FAKE[@]}" --slurm --regrade --sbatch /nonexistent/sbatch lab3 "$K" -o "$T/res-slurm" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 2 ] && grep -q "cannot find sbatch ('/nonexistent/sbatch')" "$T/err" && [ "$before" = "$(cat "$T/res-slurm/gradebook.csv")" ] \
    && ok "sbatch missing: exit 2 at once, as documented, nothing done" || no "sbatch missing: exit $rc, $(cat "$T/err")"
PATH=/usr/bin:/bin "$BATCH" "${FAKE[@]}" --slurm lab3 "$K" -o "$T/res-slurm" > "$T/out" 2> "$T/err"
rc=$?
if command -v sbatch > /dev/null; then echo "  skip  (sbatch is installed here)"
else [ $rc = 2 ] && grep -q "cannot find sbatch ('sbatch')" "$T/err" && ok "no sbatch on PATH: exit 2" || no "no sbatch on PATH: exit $rc, $(cat "$T/err")"; fi

echo "batch tests: $passes passed, $fails failed"
[ $fails = 0 ]
