#!/usr/bin/env bash
# test-slurm.sh BUILD - smemlab-batch --slurm on a real Slurm cluster of one
# machine, started and stopped here (tests/slurm/cluster.sh).
#
#  1. The cluster itself: a trivial job array asking --gres=gpu:1 runs every
#     task, one at a time (the node has one GPU), each seeing its GPU in
#     CUDA_VISIBLE_DEVICES.
#  2. A class graded with smemlab-batch --slurm --slurm-gpu: chunks of 2
#     submissions per array task, --gres=gpu:1, sbatch --wait; every
#     submission must come back through its task graded as the grader itself
#     grades on this machine (without a GPU: emulated, full marks for a
#     solution, fewer for the skeleton, the provenance saying so), and the
#     reports be written from the gathered results.
#  3. The same class on a CPU-only cluster (a node without any GPU, where a job
#     asking for one is refused): smemlab-batch --slurm asks for no GPU, and
#     every submission is graded by emulation.
#
# Needs root and Debian's slurm-wlm and munge (make deps-instructor). On a
# student's machine without them this is skipped; under CI (CI=true) it fails.
set -u
cd "$(dirname "$0")/../.."
. tests/integrations/lib.sh
. tests/slurm/cluster.sh
[ $# -eq 2 ] || { echo "usage: $0 BUILD REFERENCE_LIB" >&2; exit 2; }
BUILD=$(cd "$1" && pwd) || exit 2
REF_LIB=$2
for f in "$BUILD/smemlab-batch" "$BUILD/smemlab-grade" "$REF_LIB"; do
    [ -e "$f" ] || { echo "$f is missing: run make check-slurm" >&2; exit 2; }
done

missing=$(cluster_missing)
if [ -n "$missing" ]; then
    if [ -n "${CI:-}" ]; then
        echo "FAIL: the Slurm test needs: $missing (make deps-instructor; CI runs as root)" >&2
        exit 1
    fi
    echo "SKIP: the Slurm test needs: $missing (make deps-instructor, and root)"
    exit 0
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-slurm-test.XXXXXX") || exit 2
chmod 755 "$TMP"
batch_pid=
cleanup() {
    if [ -n "$batch_pid" ] && kill -0 "$batch_pid" 2>/dev/null; then
        kill "$batch_pid" 2>/dev/null # timeout passes it on to smemlab-batch
        wait "$batch_pid" 2>/dev/null
    fi
    cluster_stop
    if [ -n "${KEEP:-}" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_jobs SECONDS JOBID...: until squeue lists none of them.
wait_jobs() {
    local limit=$1 t0=$SECONDS
    shift
    while [ -n "$(squeue -h -j "$(IFS=,; echo "$*")" -o %i 2>/dev/null)" ]; do
        if [ $((SECONDS - t0)) -gt "$limit" ]; then
            echo "jobs $* still queued after ${limit}s:" >&2
            squeue >&2
            return 1
        fi
        sleep 0.5
    done
}

t0=$SECONDS
if cluster_start "$TMP/cluster"; then
    ok "cluster up in $((SECONDS - t0))s: munged, slurmctld, slurmd on localhost, one GPU in gres.conf"
else
    not_ok "the cluster did not start"
    finish_tests test-slurm
    exit 1
fi

# --- 1. a trivial array -------------------------------------------------------------
mkdir -p "$TMP/trivial"
cat >"$TMP/trivial/job.sh" <<'JOB'
#!/bin/bash
out=$1/task-$SLURM_ARRAY_TASK_ID
echo "start $(date +%s.%N)" >"$out.tmp"
sleep 0.5
echo "gpu ${CUDA_VISIBLE_DEVICES:-none}" >>"$out.tmp"
echo "end $(date +%s.%N)" >>"$out.tmp"
mv "$out.tmp" "$out"
JOB
t0=$SECONDS
if jid=$(sbatch --parsable --array=0-2 --gres=gpu:1 --time=1 -J smemlab-trivial \
        -o "$TMP/trivial/slurm-%A_%a.out" "$TMP/trivial/job.sh" "$TMP/trivial" 2>"$TMP/sbatch.err"); then
    ok "sbatch --array=0-2 --gres=gpu:1 accepted (job $jid)"
else
    not_ok "sbatch --array=0-2 --gres=gpu:1" "$TMP/sbatch.err"
fi
wait_jobs 60 "${jid:-0}" || cluster_dump_logs
n=$(ls "$TMP"/trivial/task-* 2>/dev/null | wc -l)
if [ "$n" -eq 3 ]; then ok "all 3 array tasks ran ($((SECONDS - t0))s)"; else not_ok "$n of 3 array tasks ran"; cluster_dump_logs; fi
if [ "$(grep -h '^gpu ' "$TMP"/trivial/task-* 2>/dev/null | sort -u)" = "gpu 0" ]; then
    ok "each task saw CUDA_VISIBLE_DEVICES=0"
else
    not_ok "each task saw CUDA_VISIBLE_DEVICES=0" <(cat "$TMP"/trivial/task-* 2>&1)
fi
# one GPU: no two tasks at once
if awk '/^start/ { s[FILENAME] = $2 } /^end/ { e[FILENAME] = $2 }
        END { for (a in s) for (b in s) if (a < b && s[a] < e[b] && s[b] < e[a]) exit 1 }' "$TMP"/trivial/task-*; then
    ok "the tasks ran one at a time on the node's one GPU"
else
    not_ok "two tasks overlapped on the one GPU" <(cat "$TMP"/trivial/task-*)
fi

# --- 2. a class through smemlab-batch --slurm ----------------------------------------
# Five students, four distinct sources: a folder, the same file bare, a
# .tar.gz, a skeleton, and one that does not compile. Chunks of 2: three
# array tasks.
class=$TMP/class
mkdir -p "$class/alice/src" "$TMP/zip/carol"
cp solutions/lab3-padding/lab3.cu "$class/alice/src/lab3.cu"
cp solutions/lab3-padding/lab3.cu "$class/bob.cu" # alice's, byte for byte: built once
{ cat solutions/lab3-padding/lab3.cu; echo "// carol's"; } >"$TMP/zip/carol/lab3.cu"
(cd "$TMP/zip" && tar -czf "$class/carol.tar.gz" carol)
cp labs/lab3-padding/lab3.cu "$class/dave.cu"
awk '/^__global__/ && !done { print "int broken = ;"; done = 1 } { print }' \
    solutions/lab3-padding/lab3.cu >"$class/erin.cu"
line=$(grep -n '^int broken = ;' "$class/erin.cu" | cut -d: -f1)
students="alice bob carol dave erin"

# What the grader says of a lab 3 library on this machine: its provenance, or
# why it does not grade it.
arch=() ref_reason=
NO_COLOR=1 "$BUILD/smemlab-grade" --lib "$REF_LIB" --json "$TMP/ref-prov.json" lab3 >/dev/null 2>&1
ref_prov=$(jq -r '.labs[0].device // ""' "$TMP/ref-prov.json")
case $ref_prov in
    "emulated on the CPU"*) ref_prov=${ref_prov%%speed not measured*}"speed not measured" ;;
    *" (sm_"*"; measured by "*) b=${ref_prov#*; measured by }; ref_prov="${b%%[ (:;]*} on ${ref_prov%% (sm_*}, sm_$(sed 's/.* (sm_\([0-9]*\).*/\1/' <<<"$ref_prov")" ;;
esac
if ! gpu_present; then
    arch=(--nvcc-arch "-arch=sm_75") # one architecture: faster builds
    NO_COLOR=1 "$BUILD/smemlab-grade" --lib "$REF_LIB" --json "$TMP/ref.json" lab3 >/dev/null 2>&1
    ref_reason=$(jq -r '.labs[0].not_graded // empty' "$TMP/ref.json")
    # without a GPU the grader emulates: graded as on a GPU, its report says so
    [ -n "$ref_reason" ] || jq -e '.labs[0].device | startswith("emulated on the CPU")' "$TMP/ref.json" >/dev/null ||
        not_ok "no GPU: the grader neither emulated $REF_LIB nor said why not" "$TMP/ref.json"
fi

# grade_class NAME PARTITION [BATCH ARGS...]: the class through smemlab-batch --slurm
# on PARTITION, chunks of 2 (three array tasks); every submission must come back
# through its task graded as the grader grades here, the reports written from them.
grade_class() {
    local name=$1 part=$2
    shift 2
    results=$TMP/results-$name
    local t0=$SECONDS
    timeout 300 "$BUILD/smemlab-batch" --slurm --chunk-size 2 --plain --time-limit 60 "${arch[@]}" \
        --sbatch-arg=--partition="$part" "$@" -o "$results" lab3 "$class" >"$TMP/batch-$name.out" 2>&1 &
    batch_pid=$!
    wait "$batch_pid"
    local rc=$?
    batch_pid=
    echo "  ($name: smemlab-batch --slurm on partition $part: exit $rc in $((SECONDS - t0))s)"
    if [ $rc -le 1 ]; then ok "$name: smemlab-batch --slurm ran to the end (exit $rc)"; else not_ok "$name: smemlab-batch --slurm exit $rc" "$TMP/batch-$name.out"; cluster_dump_logs; fi
    local n_tasks logs s rec task missing f
    n_tasks=$(ls "$results"/.slurm/chunk-*.txt 2>/dev/null | wc -l)
    if [ "$n_tasks" -eq 3 ] && grep -q -- '--array=0-2' "$results/.slurm/job.sh"; then ok "$name: 3 chunks of up to 2 submissions, --array=0-2"
    else not_ok "$name: $n_tasks chunks, expected 3" "$results/.slurm/job.sh"; fi
    # Slurm wrote each task's log (--output of the array): the tasks ran under it.
    logs=$(ls "$results"/.slurm/task-*.log 2>/dev/null | wc -l)
    if [ "$logs" -eq 3 ]; then ok "$name: Slurm ran the 3 array tasks (their logs)"; else not_ok "$name: $logs task logs, expected 3" "$TMP/batch-$name.out"; fi
    for s in $students; do
        rec=$results/$s.json
        task=$(grep -lx "$s.*" "$results"/.slurm/chunk-*.txt 2>/dev/null | sed 's/.*chunk-\([0-9]*\).txt/\1/')
        if [ -z "$task" ]; then not_ok "$name: $s is in no chunk"; continue; fi
        if ! jq -e . "$rec" >/dev/null 2>&1; then not_ok "$name: $s: no record came back from task $task" "$results/.slurm/task-$task.log"; continue; fi
        if jq -e '.reason | contains("array task")' "$rec" >/dev/null; then
            not_ok "$name: $s: lost in task $task" "$rec"
        elif [ "$s" = erin ]; then
            check "$name: erin (task $task): does not compile, at line $line" "$rec" \
                '.status == "not-compiled" and (.reason | startswith("does not compile: lab3.cu:" + $l + ":"))' --arg l "$line"
        elif [ -n "$ref_reason" ]; then
            check "$name: $s (task $task): not graded: $ref_reason" "$rec" \
                '.status == "not-graded" and .reason == "not graded: " + $r and .points == 0' --arg r "$ref_reason"
        elif [ "$s" = dave ]; then
            check "$name: dave (task $task): the skeleton, graded ($ref_prov), not full marks" "$rec" \
                '.status == "graded" and .points < .max_points and .provenance == $p' --arg p "$ref_prov"
        else
            check "$name: $s (task $task): the solution, graded ($ref_prov), full marks" "$rec" \
                '.status == "graded" and .points == .max_points and .max_points > 0 and .provenance == $p' --arg p "$ref_prov"
        fi
    done
    # The reports, written from what the tasks sent back.
    if [ -f "$results/gradebook.csv" ] && [ "$(tail -n +2 "$results/gradebook.csv" | wc -l)" -eq 5 ]; then
        ok "$name: gradebook.csv has the 5 students"
    else
        not_ok "$name: gradebook.csv has the 5 students" "$results/gradebook.csv"
    fi
    if [ -n "$ref_reason" ] && [ "$(grep -cF "$ref_reason" "$results/gradebook.csv")" -ne 4 ]; then
        not_ok "$name: gradebook.csv gives the 4 that compile the grader's reason" "$results/gradebook.csv"
    fi
    missing=
    for s in $students; do
        for f in "feedback/$s.txt" "feedback/$s.html" "gradescope/$s/results.json" "autolab/$s.txt"; do
            [ -s "$results/$f" ] || missing="$missing $f"
        done
    done
    [ -s "$results/junit.xml" ] || missing="$missing junit.xml"
    if [ -z "$missing" ]; then ok "$name: feedback, Gradescope, Autolab and JUnit reports for every student"; else not_ok "$name: reports missing:$missing"; fi
}

# On the GPU partition, asking for a GPU (--slurm-gpu).
grade_class gpu smemlab --slurm-gpu
if grep -qx -- '#SBATCH --gres=gpu:1' "$results/.slurm/job.sh"; then ok "gpu: --slurm-gpu: the job script asks --gres=gpu:1"
else not_ok "gpu: --slurm-gpu: the job script asks --gres=gpu:1" "$results/.slurm/job.sh"; fi

# --- 3. a CPU-only partition: no GPU anywhere, graded by emulation -----------------------------
cluster_stop
t0=$SECONDS
if cluster_start "$TMP/cluster-cpu" 0; then
    ok "a CPU-only cluster up in $((SECONDS - t0))s: partition cpu, a node without any GPU"
    if sbatch --parsable --gres=gpu:1 --time=1 -o /dev/null --wrap=true >"$TMP/sbatch-gpu.out" 2>&1; then
        not_ok "a job asking for a GPU was accepted where there is none" "$TMP/sbatch-gpu.out"
    else
        ok "(there, a job asking --gres=gpu:1 is refused: $(head -n1 "$TMP/sbatch-gpu.out"))"
    fi
    grade_class cpu cpu
    if ! grep -q -- '--gres' "$results/.slurm/job.sh" && grep -q '^#SBATCH --time=[0-9]*$' "$results/.slurm/job.sh"; then
        ok "cpu: the job script asks for no GPU (--time=$(sed -n 's/^#SBATCH --time=//p' "$results/.slurm/job.sh") minutes by the documented formula)"
    else not_ok "cpu: the job script asks for no GPU" "$results/.slurm/job.sh"; fi
    if [ -z "$ref_reason" ] && ! gpu_present && grep -q "graded by         4  emulated on the CPU: no GPU found; speed not measured" "$TMP/batch-cpu.out"; then
        ok "cpu: the 4 that compile graded by emulation, as the summary says"
    elif [ -z "$ref_reason" ] && ! gpu_present; then not_ok "cpu: the summary's provenance" "$TMP/batch-cpu.out"; fi
    # labs 7 to 10 through the same cluster: a solution and a skeleton each, one task
    for lab in lab7 lab8 lab9 lab10; do
        speed=3; [ $lab = lab9 ] && speed=4 # the points a GPU alone measures
        c=$TMP/class-$lab
        mkdir -p "$c"
        cp solutions/$lab-*/$lab.cu "$c/sol.cu"
        cp labs/$lab-*/$lab.cu "$c/skel.cu"
        r=$TMP/results-$lab
        timeout 300 "$BUILD/smemlab-batch" --slurm --chunk-size 2 --plain --time-limit 60 "${arch[@]}" \
            --sbatch-arg=--partition=cpu -o "$r" $lab "$c" >"$TMP/batch-$lab.out" 2>&1
        if [ -n "$ref_reason" ]; then
            check "$lab through Slurm: not graded, as lab 3 ($ref_reason)" "$r/sol.json" '.status == "not-graded"'
        elif gpu_present; then
            check "$lab through Slurm: the solution full marks" "$r/sol.json" '.status == "graded" and .points == .max_points and .max_points > 0'
        else
            check "$lab through Slurm, emulated: the solution all but speed's $speed points" "$r/sol.json" \
                ".status == \"graded\" and .points == .max_points - $speed and .max_points > 0"
        fi
        [ -n "$ref_reason" ] || check "$lab through Slurm: the skeleton graded, not full marks" "$r/skel.json" \
            '.status == "graded" and .points < .max_points'
    done
else
    not_ok "the CPU-only cluster did not start"
fi

finish_tests test-slurm
