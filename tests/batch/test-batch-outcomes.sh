#!/usr/bin/env bash
# test-batch-outcomes.sh BUILD - smemlab-batch without a GPU: checks neither passed nor failed, counted apart; grammar; provenance; the grading machine's failures, never the student's
# (make check; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

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
# speed-only re-grades: --regrade-not-measured grades again those with checks not measured,
# and refuses where nothing could be measured either (no GPU here: no /dev/nvidiactl)
rm -f "$T/grader.log"
if [ ! -e /dev/nvidiactl ]; then
    FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade-not-measured lab3 "$A" -o "$T/res-apart" > "$T/run.log" 2>&1
    rc=$?
    [ $rc = 2 ] && [ ! -e "$T/grader.log" ] && grep -q "cannot measure it either: run it on a machine with a GPU" "$T/run.log" &&
        ok "--regrade-not-measured on a machine without a GPU: refused (exit 2), nothing graded" ||
        no "--regrade-not-measured without a GPU: exit $rc, $(cat "$T/run.log")"
fi
"$BATCH" "${FAKE[@]}" --regrade-not-measured --grader-arg=--measure=emulator lab3 "$A" -o "$T/res-apart" > "$T/run.log" 2>&1
[ $? = 2 ] && grep -q "and --measure=emulator cannot measure it either" "$T/run.log" &&
    ok "--regrade-not-measured with --measure=emulator: refused" || no "--measure=emulator: $(cat "$T/run.log")"
SMEMLAB_GPU_NODE=/dev/null FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade-not-measured lab3 "$A" -o "$T/res-apart" > "$T/run.log" 2>&1
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

batch_finish outcomes
