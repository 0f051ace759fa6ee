#!/usr/bin/env bash
# check-speed.sh BUILD GRADER OUT BENCH [ARG...] - issue 41's speed evidence on the GPU at
# hand, in one run: BENCH ARG... (the bench binary with the solutions, every candidate of
# solutions/candidates/ and the planted variants whose speed must pass: make check-speed
# gives make bench's command line with BENCH_CANDIDATES=1), then every planted row whose
# check is speed or whose honest kernel must keep its speed, graded by the trace and
# held to tests/planted/manifest.tsv, and the solutions of the labs with a speed check.
# The bench runs here, not through a nested make bench: a make started from make
# check-speed -j16 ran at -j1 ("jobserver unavailable") and printed nothing for 600 s.
# Everything lands in OUT (bench.txt, NAME.{json,txt}), and OUT.tar.gz beside it.
# Needs the planted, candidate and solution libraries built (make check-speed does).
set -u
build=${1:?usage: check-speed.sh BUILD GRADER OUT BENCH [ARG...]}
grader=${2:?usage: check-speed.sh BUILD GRADER OUT BENCH [ARG...]}
out=${3:?usage: check-speed.sh BUILD GRADER OUT BENCH [ARG...]}
shift 3
[ $# -gt 0 ] || { echo "usage: check-speed.sh BUILD GRADER OUT BENCH [ARG...]" >&2; exit 2; }
here=$(dirname "$0")
expect=$build/tests/expect
mkdir -p "$out"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
. "$here/../judge.sh" || exit 2

# speeds JSON: each speed check of the report, one line: kernel, status, message
speeds() {
    python3 - "$1" <<'PY'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"      (no report: {e})")
for lab in report.get("labs", []):
    for c in lab.get("checks", []):
        if c["check"] == "speed":
            print(f"      {c['kernel']:<24} speed {c['status']}: {c['message']}")
PY
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$out/gpu.csv" 2>&1
"$@" > "$out/bench.txt" 2>&1
echo "bench: exit $? ($(grep -c ' ok (rel' "$out/bench.txt") rows checked out; $out/bench.txt)"

# the planted rows that speak of speed: a speed check, or an honest kernel's full marks
rows=$(awk -F'\t' '$4 == "speed" || $1 ~ /^(lab7-grid-stride|lab10-lookup-one-key)\.cu$/' tests/planted/manifest.tsv)
while IFS=$'\t' read -r file lab kernel check text; do
    name=${file%.cu}
    [ -f "$out/$name.json" ] || "$grader" --measure trace --json "$out/$name.json" --lib "$build/planted/$name.so" "$lab" > "$out/$name.txt" 2>&1
    judge_row "$out/$name.json" "$file" "$kernel" "$check" "$text"
    speeds "$out/$name.json"
done <<<"$rows"
for lab in lab5 lab6 lab7 lab8 lab9 lab10; do
    "$grader" --measure trace --solutions --json "$out/$lab-solution.json" "$lab" > "$out/$lab-solution.txt" 2>&1
    judge_solution "$out/$lab-solution.json" $? "$lab solution"
    speeds "$out/$lab-solution.json"
done
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
echo "check-speed: $passed passed, $failed failed; $out.tar.gz"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
