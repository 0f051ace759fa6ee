#!/usr/bin/env bash
# test-batch-term.sh BUILD - an instructor's term (issue 39) with the fakes: every record
# says what graded it; a class is graded one way (class.json) or refused with the
# difference named; a re-grade keeps history and says whose points changed and why;
# --reproduce; stale files set apart; the learning systems' import files (Moodle,
# Canvas) against their importers' published column rules; the course's late penalty
# and extra points; similar.txt; an emulated class read as complete; signals end a
# run cleanly; make batch passes GRADE_FLAGS (make check; lib.sh has what is shared).
set -u
. "$(dirname "$0")/lib.sh"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

echo "[$SECONDS s] == provenance: every format says what graded each student"
C=$T/class
mkdir -p "$C"
for s in ada bob cid; do variant "$C/$s.cu" "$s"; done
"$BATCH" "${FAKE[@]}" lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
[ "$(j "$T/res/ada.json" "d['grading']['grader'], d['grading']['options']['seed'], d['grading']['batch']['nvcc_arch'], len(d['grading']['table_sha256'])")" = "('fake-1.0', '20240605', '-fake', 64)" ] &&
    ok "the record: the grader's version, seed, table digest, the build's arch" || no "record grading: $(j "$T/res/ada.json" "d.get('grading')")"
gw=$(field ada graded_with)
[[ $gw == "smemlab fake-1.0; table "*"; seed 20240605; nvcc V13.0.88" ]] &&
    grep -qF "Graded with: $gw" "$T/res/feedback/ada.txt" && grep -qF "Graded with: $gw" "$T/res/autolab/ada.txt" &&
    grep -qF "name=\"graded_with\" value=\"$gw\"" "$T/res/junit.xml" &&
    [ "$(j "$T/res/gradescope/ada/results.json" "d['extra_data']['graded_with']")" = "$gw" ] &&
    [ -s "$T/res/sources/$(j "$T/res/ada.json" "d['sha256']").cu" ] &&
    ok "graded_with in the gradebook, feedback, Autolab, JUnit, Gradescope; the source kept for --reproduce" || no "graded_with: '$gw'"
validate "$T/res"

echo "[$SECONDS s] == one class, one way: another seed or table refused, the difference named"
rm -f "$T/grader.log"
FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --grader-arg=--seed=7 lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
rc=$?
[ $rc = 2 ] && [ ! -e "$T/grader.log" ] && grep -qF 'the grader'"'"'s options: [], now ["--seed=7"]' "$T/run.log" &&
    grep -qF "add --regrade (make batch: BATCH_FLAGS=--regrade)" "$T/run.log" && ok "another seed: refused (exit 2), nothing graded, the options named" || no "seed: exit $rc, $(cat "$T/run.log")"
FAKE_GRADER_TABLE="fake table: correct=3" "$BATCH" "${FAKE[@]}" lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
[ $? = 2 ] && grep -q "the lab's table (points, speed thresholds, steps" "$T/run.log" && grep -q "was fake table: correct=2" "$T/run.log" &&
    grep -q "now fake table: correct=3" "$T/run.log" && ok "another table (a course file changed): refused, its lines was/now" || no "table: $(cat "$T/run.log")"
for bad in --json=x --seed --lib=a.so; do
    "$BATCH" "${FAKE[@]}" --grader-arg=$bad lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
    [ $? = 2 ] && grep -q "\-\-grader-arg $bad" "$T/run.log" || { no "--grader-arg=$bad: $(cat "$T/run.log")"; continue; }
done
ok "--grader-arg refuses what is not a grading option, and a value it lacks"

echo "[$SECONDS s] == --regrade another way: history kept, whose points changed and why; --diff"
variant "$C/dan.cu" dan FAKE-COMPILE-ERROR
"$BATCH" "${FAKE[@]}" --only dan lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
rm -f "$T/grader.log"
FAKE_GRADER_LOG=$T/grader.log FAKE_GRADER_POINTS="6 3" "$BATCH" "${FAKE[@]}" --grader-arg=--seed=7 --regrade lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
[ $? = 0 ] && [ -s "$T/res/history/ada/1.json" ] && [ "$(j "$T/res/history/ada/1.json" "d['points']")" = 12 ] &&
    [ "$(field ada points)" = 9 ] && [ "$(j "$T/res/ada.json" "d['grading']['options']['seed']")" = 7 ] &&
    ok "--regrade: ada's earlier record in history/ada/1.json (12), the new one 9 at seed 7" || no "regrade: $(field ada points) $(ls "$T/res/history" 2>&1)"
grep -q "^  ada: 12/12 -> 9/12; graded another way: was 'smemlab fake-1.0; table [0-9a-f]*; seed 20240605; nvcc V13.0.88', now '.*seed 7; .*'; checks: setRowReadColDynPad load-requests pass -> fail, setRowReadColDynPad store-conflicts pass -> fail, setRowReadColDynPad load-conflicts pass -> fail$" "$T/run.log" &&
    ok "the run says whose points changed and why (the way, each check)" || no "changes: $(grep -A4 'Changed by' "$T/run.log")"
[ "$(grep -c "lab3.so" "$T/grader.log")" = 3 ] && [ "$(field dan status)" = not-compiled ] && [ ! -e "$T/res/history/dan" ] &&
    ok "dan, who did not compile, kept as final by --regrade (3 graded, not 4)" || no "not-compiled final: $(wc -l < "$T/grader.log") graded"
"$BATCH" --diff -o "$T/res" > "$T/diff.log" 2>&1
grep -q "^  ada: 12/12 -> 9/12" "$T/diff.log" && grep -q "^  cid: 12/12 -> 9/12" "$T/diff.log" && ok "--diff: the same, from the folder alone" || no "--diff: $(cat "$T/diff.log")"
# a dispute: bob resubmits, --only bob; his history grows, the change says a new submission,
# and the report page of his earlier file (the real grader's --html; the fake writes none)
# stays beside his history, not set apart as a student's who left
old_page=pages/$(j "$T/res/bob.json" "d['sha256']").html
mkdir -p "$T/res/pages" && echo "<html>bob's first file</html>" > "$T/res/$old_page"
variant "$C/bob.cu" bob "fixed after the dispute"
FAKE_GRADER_POINTS="6 3" "$BATCH" "${FAKE[@]}" --grader-arg=--seed=7 --only bob lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
[ -s "$T/res/history/bob/2.json" ] && grep -q "^  bob: 9/12 -> 9/12; a new submission" "$T/run.log" &&
    ok "a dispute (--only bob, a new file): history/bob/2.json, 'a new submission'" || no "dispute: $(grep -A2 Changed "$T/run.log")"
[ -s "$T/res/$old_page" ] && grep -qx "$old_page" "$T/res/manifest.txt" && ! grep -q "Set apart" "$T/run.log" &&
    ok "the page of bob's earlier file stays with his history (manifest.txt), nothing set apart" ||
    no "bob's earlier page: $(ls "$T/res/pages" 2>&1) $(grep "Set apart" "$T/run.log")"

# a course file that changes a check's points, verdicts the same: the change names the points
mkdir -p "$T/pts" && variant "$T/pts/pam.cu" pam
"$BATCH" "${FAKE[@]}" lab3 "$T/pts" -o "$T/res-pts" > "$T/run.log" 2>&1
FAKE_CORRECT_MAX=3 FAKE_GRADER_POINTS="7 7" FAKE_GRADER_TABLE="fake table: correct=3" "$BATCH" "${FAKE[@]}" --regrade lab3 "$T/pts" -o "$T/res-pts" > "$T/run.log" 2>&1
grep -q "^  pam: 12/12 -> 14/14; graded another way: .*; checks: setRowReadColPad correct pass 2/2 -> 3/3, setRowReadColDynPad correct pass 2/2 -> 3/3$" "$T/run.log" &&
    ok "a course file's new points: 'correct pass 2/2 -> 3/3', not 'pass -> pass'" || no "points changed: $(grep -A2 Changed "$T/run.log")"

echo "[$SECONDS s] == --reproduce: a record graded again from the record alone"
FAKE_GRADER_POINTS="6 3" "$BATCH" --grader "$HERE/fake-grader" --nvcc "$HERE/fake-nvcc" --reproduce ada -o "$T/res" > "$T/rep.log" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "ada: every check came out the same (10 checks, 9/12)" "$T/rep.log" && [ -s "$T/res/reproduce/ada.json" ] &&
    [ "$(field ada points)" = 9 ] && ok "--reproduce ada: every check the same (exit 0), the record untouched" || no "reproduce: exit $rc $(cat "$T/rep.log")"
FAKE_GRADER_POINTS="2 3" FAKE_GRADER_VERSION=fake-2.0 "$BATCH" --grader "$HERE/fake-grader" --nvcc "$HERE/fake-nvcc" --reproduce ada -o "$T/res" > "$T/rep.log" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "not as recorded: the grader's version: fake-1.0, now fake-2.0" "$T/rep.log" &&
    grep -q "differs: setRowReadColPad store-requests: recorded pass 1/1, now fail" "$T/rep.log" &&
    ok "--reproduce by another grader that grades otherwise: exit 1, the grader and each check named" || no "reproduce differs: exit $rc $(cat "$T/rep.log")"

echo "[$SECONDS s] == stale files of earlier runs set apart by the manifest"
rm "$C/cid.cu"
FAKE_GRADER_POINTS="6 3" "$BATCH" "${FAKE[@]}" --grader-arg=--seed=7 lab3 "$C" -o "$T/res" > "$T/run.log" 2>&1
st=$(ls -d "$T"/res/stale/*/ 2>/dev/null | head -1)
[ -n "$st" ] && [ -s "$st/cid.json" ] && [ -s "$st/feedback/cid.txt" ] && [ -s "$st/gradescope/cid/results.json" ] &&
    [ -s "$st/autolab/cid.txt" ] && [ ! -e "$T/res/cid.json" ] && ! grep -q cid "$T/res/manifest.txt" &&
    grep -q "^feedback/ada.html$" "$T/res/manifest.txt" && grep -q "Set apart 5 files of students no longer in the class" "$T/run.log" &&
    ok "cid left the class: cid's record, feedback, Gradescope, Autolab files moved to stale/, none lost" || no "stale: $(ls -R "$T/res/stale" 2>&1 | head)"
validate "$T/res"

echo "[$SECONDS s] == an emulated class reads as complete"
E=$T/emu
mkdir -p "$E"
variant "$E/eva.cu" eva FAKE-EMULATED "FAKE-APART: not-measured"
"$BATCH" "${FAKE[@]}" lab3 "$E" -o "$T/res-emu" > "$T/run.log" 2>&1
[ "$(field eva max_here "$T/res-emu")" = 10 ] && grep -q "full marks        1" "$T/run.log" &&
    grep -q "out of 10 here, 12 in all: 2 points (speed) need a GPU. Set the assignment's total to 10" "$T/run.log" &&
    j "$T/res-emu/gradescope/eva/results.json" "[t for t in d['tests'] if 'not measured here' in t['name']]" | grep -q "'max_score': 0, 'output'" &&
    ! j "$T/res-emu/gradescope/eva/results.json" "[t for t in d['tests'] if 'not measured here' in t['name']]" | grep -q status &&
    grep -q 'skipped="2"' "$T/res-emu/junit.xml" && grep -q 'failures="0"' "$T/res-emu/junit.xml" &&
    grep -q "Graded here: 10/10 (2 points need a GPU" "$T/res-emu/feedback/eva.txt" &&
    ok "10 of 12 graded here: full marks, Gradescope 0 of 0 and no status, JUnit skipped, the total to set" || no "emulated: $(tail -15 "$T/run.log")"
validate "$T/res-emu"

echo "[$SECONDS s] == a check that waits for another is not run yet, never failed"
W=$T/wait
mkdir -p "$W"
variant "$W/wes.cu" wes "FAKE-POINTS: 1 6" FAKE-WAITING # correct wrong: 3 counts wait for it
"$BATCH" "${FAKE[@]}" lab3 "$W" -o "$T/res-wait" > "$T/run.log" 2>&1
[ "$(j "$T/res-wait/wes.json" "[c['status'] for c in d['checks']][:5]")" = "['fail', 'pass', 'waiting', 'waiting', 'waiting']" ] &&
    [ "$(field wes reason "$T/res-wait")" = "1 check failed, 3 not run yet (they wait for it)" ] &&
    grep -q 'failures="1"' "$T/res-wait/junit.xml" && grep -q 'skipped="3"' "$T/res-wait/junit.xml" &&
    grep -q '<skipped message="not run yet: waits for correct' "$T/res-wait/junit.xml" &&
    [ "$(j "$T/res-wait/gradescope/wes/results.json" "[(t['max_score'], 'status' in t) for t in d['tests'] if t['name'].endswith('(not run yet)')]")" = "[(1, False), (1, False), (1, False)]" ] &&
    grep -q "WAIT" "$T/res-wait/feedback/wes.txt" && grep -q "failed checks     1" "$T/run.log" &&
    ok "waiting: the gradebook says 1 failed, 3 not run yet; JUnit skips them; Gradescope gives no verdict" ||
    no "waiting: $(field wes reason "$T/res-wait"); $(grep -o 'failures="[0-9]*"\|skipped="[0-9]*"' "$T/res-wait/junit.xml" | head -4 | tr '\n' ' ')"
validate "$T/res-wait"

echo "[$SECONDS s] == the learning systems' own import files, the course's policy"
# Moodle's and Canvas's exports: folders NAME_PARTICIPANT_assignsubmission_file_, files
# sortablename[_LATE]_USERID_ATTACHMENT_FILE (grader/batch/layouts.c)
L=$T/lms
mkdir -p "$L/moodle/Ada Lovelace_1001_assignsubmission_file_" "$L/moodle/Bo_b Li_1002_assignsubmission_file_" "$L/canvas"
variant "$L/moodle/Ada Lovelace_1001_assignsubmission_file_/lab3.cu" ada-m
variant "$L/moodle/Bo_b Li_1002_assignsubmission_file_/lab3.cu" bob-m
variant "$L/canvas/lovelaceada_LATE_50001_900001_lab3.cu" ada-c
variant "$L/canvas/libob_50002_900002_lab3.cu" bob-c
printf '# a course file: the policy\nlate-penalty 10%%\nextra-points extra.csv\n' > "$L/course.conf"
printf 'libob_50002,2,presented in class\n1002,1.5,found a bug\n' > "$L/extra.csv"
"$BATCH" "${FAKE[@]}" --course "$L/course.conf" lab3 "$L/moodle" -o "$T/res-moodle" > "$T/run.log" 2>&1 || no "moodle: $(tail "$T/run.log")"
"$BATCH" "${FAKE[@]}" --course "$L/course.conf" --assignment "Lab 3 (777)" lab3 "$L/canvas" -o "$T/res-canvas" > "$T/run.log" 2>&1 || no "canvas: $(tail "$T/run.log")"
python3 - "$T/res-moodle/lms" "$T/res-canvas/lms" > "$T/lms.log" 2>&1 <<'PY'
import csv, io, sys, zipfile
moodle, canvas = sys.argv[1], sys.argv[2]
bad = []
# Moodle's worksheet importer, as published in its source (mod/assign/feedback/offline/
# importgradeslib.php, init() and next(); Moodle 2.8's at
# https://docs.huihoo.com/phpdoc/moodle/2.8/xref/mod/assign/feedback/offline/importgradeslib.php.source.txt,
# unchanged in kind since): the columns get_string('recordid','assign') = "Identifier", get_string('grade') =
# "Grade" and get_string('lastmodifiedgrade','assign') = "Last modified (grade)" must all be
# there, found by name; the user is the number after get_string('hiddenuser','assign') =
# "Participant "; a feedback plugin's field ("Feedback comments") is read by its name.
rows = list(csv.reader(io.StringIO(open(moodle + "/moodle-grading-worksheet.csv", newline="").read(), newline="")))
h = rows[0]
for need in ("Identifier", "Grade", "Last modified (grade)", "Feedback comments"):
    if need not in h: bad.append("worksheet lacks %r: %r" % (need, h))
by = {r[h.index("Identifier")]: r for r in rows[1:]}
if sorted(by) != ["Participant 1001", "Participant 1002"]: bad.append("identifiers %r" % sorted(by))
# Bob has 1.5 extra points by his participant id; Moodle's export is never late
if by.get("Participant 1002", [""] * 9)[h.index("Grade")] != "13.50": bad.append("bob's grade %r" % by.get("Participant 1002"))
if by.get("Participant 1001", [""] * 9)[h.index("Grade")] != "12.00": bad.append("ada's grade")
# the feedback zip's importer (mod/assign/feedback/file/importziplib.php,
# is_valid_filename_for_import; the zip as Moodle's own "Download all submissions" names
# its folders, which instructors are told to return, e.g.
# http://qtcpph.unas.cz/301-upload-uploadsingle-type-assignment-mod.php "the correct naming convention"): a path part split at '_' into at most 5: [1] the
# participant id, [2] 'assignfeedback', [3] 'file'; the rest is the file
z = zipfile.ZipFile(moodle + "/moodle-feedback.zip")
ids = set()
for n in z.namelist():
    part = n.split("/")[0]
    info = part.split("_", 4)
    if len(info) < 4 or not info[1].isdigit() or info[2:4] != ["assignfeedback", "file"]: bad.append("zip entry %r" % n)
    ids.add(info[1])
    if "<html" not in z.read(n).decode(): bad.append("%s is not the feedback page" % n)
if ids != {"1001", "1002"}: bad.append("zip ids %r" % ids)
# Canvas's gradebook importer (instructure/canvas-lms app/models/gradebook_importer.rb,
# row_has_student_headers? and update_column_count) and its published layout
# (https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades:
# "Student Name OR Student ID OR Student SIS User ID", "SIS Login ID", "Section", then the
# assignment; https://ts.vcu.edu/askit/teaching-and-learning/canvas/faculty/grading-faculty/gradebook-action-menu-faculty/): row[0] holds "Student", row[1] "ID"; with "SIS User ID" then "SIS Login
# ID" the student columns end at "Section"; the assignment column "Name (id)"; a row whose
# first cell holds "Points Possible"; the student found by the ID column (Canvas's user id)
rows = list(csv.reader(io.StringIO(open(canvas + "/canvas-gradebook.csv", newline="").read(), newline="")))
h = rows[0]
if h[:5] != ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"] or h[5] != "Lab 3 (777)": bad.append("canvas header %r" % h)
if "Points Possible" not in rows[1][0] or rows[1][5] != "12": bad.append("points possible %r" % rows[1])
got = {r[1]: r[5] for r in rows[2:]}
# ada is LATE in the export: 12 less 10%; bob has 2 extra points by his gradebook id
if got != {"50001": "10.80", "50002": "14.00"}: bad.append("canvas grades %r" % got)
for b in bad: print(b)
print("%d problems" % len(bad))
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] && ok "Moodle's worksheet and feedback zip, Canvas's gradebook: as their importers read them (ids, names, late -10%, extra points)" || { no "lms files:"; cat "$T/lms.log"; }
[ "$(field libob_50002 final "$T/res-canvas")" = 14 ] && [ "$(field libob_50002 policy "$T/res-canvas")" = "extra: +2 presented in class" ] &&
    grep -q "^Final: 10.8 (late: -1.2 (10%))" "$T/res-canvas/feedback/lovelaceada_50001.txt" && [ "$(field lovelaceada_50001 points "$T/res-canvas")" = 12 ] &&
    ok "the gradebook: points as graded, final after the policy and why; the feedback says it" || no "policy: $(field lovelaceada_50001 final "$T/res-canvas") $(head -3 "$T/res-canvas/gradebook.csv")"

echo "[$SECONDS s] == similar.txt: identical and near-identical submissions, the skeleton's lines aside"
S=$T/sim
mkdir -p "$S"
# a student's own work: the solution where the kit has one, else the skeleton with a
# line of the student's (identical files all the same)
work() {
    if [ -f "$KIT/solutions/lab3-padding/lab3.cu" ]; then cat "$KIT/solutions/lab3-padding/lab3.cu"
    else cat "$SKEL"; echo "// the student's own line"; fi
}
work > "$S/twin1.cu"; cp "$S/twin1.cu" "$S/twin2.cu"
work | sed 's/tile/blk/g; s/idx/k/g' > "$S/near.cu"
cp "$SKEL" "$S/sk1.cu"; { cat "$SKEL"; echo "// mine"; } > "$S/sk2.cu"
"$BATCH" "${FAKE[@]}" lab3 "$S" -o "$T/res-sim" > "$T/run.log" 2>&1
grep -q "^Identical (the same bytes):" "$T/res-sim/similar.txt" && grep -q ": twin1, twin2$" "$T/res-sim/similar.txt" &&
    ok "identical: twin1, twin2" || no "identical: $(cat "$T/res-sim/similar.txt")"
if [ ! -d "$KIT/solutions" ]; then # the student kit: no solution to copy from
    echo "  skip  near-copies by sim_c: the student kit has no solutions/ to make them from"
elif command -v sim_c > /dev/null; then
    grep -q "% of near is in twin1, twin2\|% of twin1, twin2 is in near" "$T/res-sim/similar.txt" && ! grep -q "sk1\|sk2" "$T/res-sim/similar.txt" &&
        ok "near-copies by sim_c: near and the twins; two skeletons nobody changed are not alike" || no "near: $(cat "$T/res-sim/similar.txt")"
else
    grep -q "not looked for: sim_c is not installed" "$T/res-sim/similar.txt" && echo "  skip  (no sim_c: apt-get install similarity-tester)"
fi
[ -z "$(grep -l similar "$T"/res-sim/feedback/* 2>/dev/null)" ] && ok "no student's feedback mentions it" || no "similar in feedback"

echo "[$SECONDS s] == SIGHUP, SIGTERM and SIGPIPE end a run as Ctrl-C does"
G=$T/sig
mkdir -p "$G"
for s in s1 s2 s3 s4 s5 s6; do variant "$G/$s.cu" "$s"; done
for sig in HUP TERM PIPE; do
    rm -rf "$T/res-sig" "$TMPDIR"/smemlab-batch.*
    if [ $sig != PIPE ]; then # a dropped SSH session, a kill
        FAKE_NVCC_SLEEP=30 "$BATCH" "${FAKE[@]}" -j 2 lab3 "$G" -o "$T/res-sig" > "$T/sig.log" 2>&1 &
        pid=$!
        for _ in $(seq 100); do ls -d "$TMPDIR"/smemlab-batch.* > /dev/null 2>&1 && break; sleep 0.1; done
        sleep 1
        kill -$sig $pid
        { wait $pid; } 2> /dev/null # not bash's own "Hangup" line
        rc=$?
    else # the reader goes away after one line: the next line written raises SIGPIPE
        (FAKE_NVCC_SLEEP=3 "$BATCH" "${FAKE[@]}" -j 2 lab3 "$G" -o "$T/res-sig" 2> "$T/sig.log"; echo $? > "$T/sig.rc") | head -n 1 > /dev/null
        for _ in $(seq 200); do [ -s "$T/sig.rc" ] && break; sleep 0.1; done
        rc=$(cat "$T/sig.rc"); rm -f "$T/sig.rc"
    fi
    sleep 0.5
    left=$(pgrep -f "$TMPDIR/smemlab-batch\." | wc -l)
    [ "$left" = 0 ] && ! ls -d "$TMPDIR"/smemlab-batch.* > /dev/null 2>&1 && [ ! -e "$T/res-sig/.smemlab-batch.run" ] &&
        grep -q "interrupted" "$T/sig.log" &&
        ok "SIG$sig: the run ends (status $rc), no build or grader left, its scratch folder removed" ||
        no "SIG$sig: status $rc, $left processes left, $(ls -d "$TMPDIR"/smemlab-batch.* 2>&1), $(cat "$T/sig.log")"
done

echo "[$SECONDS s] == make batch passes GRADE_FLAGS to the grader, or refuses them"
M=$T/mk
mkdir -p "$M" && variant "$M/mia.cu" mia
make -s -C "$KIT" batch LAB=lab3 SUBMISSIONS="$M" RESULTS="$T/res-make" GRADE_FLAGS=--seed=7 \
    BATCH_FLAGS="--grader $HERE/fake-grader --nvcc $HERE/fake-nvcc --nvcc-arch=-fake --plain" > "$T/run.log" 2>&1
[ "$(j "$T/res-make/mia.json" "d['grading']['batch']['grader_args']")" = "['--seed=7']" ] &&
    ok "make batch GRADE_FLAGS=--seed=7: the grader was given --seed=7" || no "make batch: $(cat "$T/run.log")"
make -s -C "$KIT" batch LAB=lab3 SUBMISSIONS="$M" RESULTS="$T/res-make2" GRADE_FLAGS="--seed 7" \
    BATCH_FLAGS="--grader $HERE/fake-grader --nvcc $HERE/fake-nvcc --nvcc-arch=-fake --plain" > "$T/run.log" 2>&1
[ $? != 0 ] && grep -q "wants its value after '='" "$T/run.log" && ok "GRADE_FLAGS='--seed 7': refused, saying how to write it" || no "make batch refusal: $(cat "$T/run.log")"

batch_finish term
