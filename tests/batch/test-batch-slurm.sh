#!/usr/bin/env bash
# test-batch-slurm.sh BUILD - smemlab-batch without a GPU: --slurm through a fake sbatch: chunks, the job script, a lost task, sbatch missing
# (make check; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

# the class of the kill test, graded locally: what the Slurm run must match
K=$T/kill
mkdir -p "$K"
for i in $(seq 1 16); do variant "$K/s$i.cu" "s$i" "FAKE-POINTS: $((i % 7)) $(( (i * 5) % 7 ))"; done
variant "$K/bad.cu" bad FAKE-COMPILE-ERROR
cp "$K/s3.cu" "$K/twin.cu"
export FAKE_GRADER_SLEEP=0.05 FAKE_NVCC_SLEEP=0.05
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-ref" > /dev/null 2>&1

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

batch_finish slurm
