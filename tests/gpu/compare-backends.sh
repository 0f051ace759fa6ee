#!/usr/bin/env bash
# compare-backends.sh BUILD GRADER - every solution, skeleton and planted
# variant graded twice, by the hardware counters and by the trace (issue 9):
# each check must get the same verdict, except the differences documented in
# tests/gpu/backend-differences.tsv. Prints the time of each backend per lab.
set -u
build=${1:?usage: compare-backends.sh BUILD GRADER}
grader=${2:?usage: compare-backends.sh BUILD GRADER}
here=$(dirname "$0")
diffs=$here/backend-differences.tsv
out=$build/backend-results
if [ ! -f "$build/libsmemlab-trace.so" ]; then
    echo "compare-backends: skipped: the trace backend is not built (make trace-backend says why)"
    exit 0
fi
rm -rf "$out" && mkdir -p "$out"
passed=0 failed=0
declare -A secs_c secs_t

grade_both() { # NAME LAB ARGS...
    local name=$1 lab=$2 t0 t1 t2
    shift 2
    t0=$(date +%s.%N)
    "$grader" --measure counters --json "$out/$name-counters.json" "$@" "$lab" > "$out/$name-counters.txt" 2>&1
    t1=$(date +%s.%N)
    "$grader" --measure trace --json "$out/$name-trace.json" "$@" "$lab" > "$out/$name-trace.txt" 2>&1
    t2=$(date +%s.%N)
    secs_c[$lab]=$(awk "BEGIN {print ${secs_c[$lab]:-0} + $t1 - $t0}")
    secs_t[$lab]=$(awk "BEGIN {print ${secs_t[$lab]:-0} + $t2 - $t1}")
    if python3 "$here/compare-backends.py" "$out/$name-counters.json" "$out/$name-trace.json" "$name" "$diffs"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
}

labs=$("$grader" --list | awk '/^lab[0-9]/ {print $1}')
for lab in $labs; do
    grade_both "$lab-solution" "$lab" --solutions --build-dir "$build"
    grade_both "$lab-skeleton" "$lab" --build-dir "$build"
done
for name in $(cut -f1 tests/planted/manifest.tsv | grep '\.cu$' | sed 's/\.cu$//' | sort -u); do
    [ -f "$build/planted/$name.so" ] || continue
    awk -F'\t' -v n="$name" '$1 == n && $3 == "skip" {found = 1} END {exit !found}' "$diffs" && continue
    grade_both "$name" "${name%%-*}" --lib "$build/planted/$name.so"
done
for lab in $labs; do
    printf 'time %s: counters %.1f s, trace %.1f s (%.1fx)\n' "$lab" "${secs_c[$lab]}" "${secs_t[$lab]}" \
        "$(awk "BEGIN {print ${secs_t[$lab]} / ${secs_c[$lab]}}")"
done
echo "compare-backends: $passed the same (or as documented), $failed not"
[ "$failed" = 0 ]
