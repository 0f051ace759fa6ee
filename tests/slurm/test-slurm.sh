#!/usr/bin/env bash
# test-slurm.sh BUILD - smemlab-batch --slurm on a real Slurm cluster of one
# machine, started and stopped here (tests/slurm/cluster.sh).
#
#  1. The cluster itself: a trivial job array asking --gres=gpu:1 runs every
#     task, one at a time (the node has one GPU), each seeing its GPU in
#     CUDA_VISIBLE_DEVICES.
#  2. A class graded through the array (see the second part below).
#
# Needs root and Debian's slurm-wlm and munge (make deps-instructor). On a
# student's machine without them this is skipped; under CI (CI=true) it fails.
set -u
cd "$(dirname "$0")/../.."
. tests/integrations/lib.sh
. tests/slurm/cluster.sh
[ $# -eq 1 ] || { echo "usage: $0 BUILD" >&2; exit 2; }
BUILD=$(cd "$1" && pwd) || exit 2

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
cleanup() {
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

finish_tests test-slurm
