#!/usr/bin/env bash
# test-batch-limits.sh BUILD - smemlab-batch without a GPU: the time limit, counted from the grader's turn on the GPU; a grader that hangs or crashes; not graded; a broken contract
# (make check-full: the time-limit sections; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

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

batch_finish limits
