#!/usr/bin/env bash
# test-batch-jobs.sh BUILD - smemlab-batch without a GPU: identical sources built and graded once; a re-run, --regrade, --only, a changed source; GPUs, meter servers, graders per GPU
# (make check; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

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
rm -f "$T/grader.log"
CUDA_VISIBLE_DEVICES=GPU-5d0e,GPU-77a1 FAKE_GRADER_SLEEP=0.3 FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
grep -q "device 0" "$T/grader.log" && grep -q "device 1" "$T/grader.log" && ! grep -q "device 2" "$T/grader.log" &&
    grep -q "2 GPUs x 3 graders" "$T/run.log" &&
    ok "no --gpus: every GPU CUDA_VISIBLE_DEVICES names (2 GPUs x 3 graders)" || no "no --gpus, two visible: $(cat "$T/grader.log" "$T/run.log")"
rm -f "$T/grader.log"
CUDA_VISIBLE_DEVICES= FAKE_GRADER_LOG=$T/grader.log "$BATCH" "${FAKE[@]}" --regrade lab3 "$S" -o "$T/res-same" > "$T/run.log" 2>&1
[ "$(grep -c "device 0" "$T/grader.log")" = 3 ] && ok "no --gpus, none visible: GPU 0 (the grader says what it finds)" || no "no --gpus, none visible: $(cat "$T/grader.log")"

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

batch_finish jobs
