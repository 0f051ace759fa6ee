#!/usr/bin/env bash
# test-calibrate.sh GRADER - make calibrate's host side (grader/kit/calibrate.sh): a grade
# of the reference solutions in the grader's JSON shape, its speed checks worded as
# check_speed words them (grader/problems/traffic.c), becomes a course file fragment
# the grader reads back; a grade without a GPU (speed not measured) proposes nothing.
# The GPU's own run: make calibrate on the GPU (docs/instructors.md#course).
set -u
GRADER=$(realpath "${1:?usage: test-calibrate.sh GRADER}")
cd "$(dirname "$0")/../.."
T=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-calibrate.XXXXXX")
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
speed() { # KERNEL STATUS MEASURED
    printf '{"kernel": "%s", "check": "speed", "status": "%s", "points": 0, "max_points": 2, "message": "m", "measured": "%s", "expected": "", "hint": ""}' "$1" "$2" "$3"
}
cat > "$T/gpu.json" <<J
{"tool": "smemlab-grade", "labs": [
 {"id": "lab9", "device": "NVIDIA H200, sm_90", "checks": [
  {"kernel": "transposeSmemPad", "check": "correct", "status": "pass", "points": 3, "max_points": 3, "message": "", "measured": "", "expected": "", "hint": ""},
  $(speed transposeSmemPad pass "0.412 ms, 652.1 GB/s (83% of copy)"),
  $(speed transposeSmemUnrollPad pass "0.398 ms, 675.0 GB/s (86% of copy)")]},
 {"id": "lab7", "device": "NVIDIA H200, sm_90", "checks": [
  $(speed reduceSmem fail "0.050 ms, 1300.0 GB/s (58% of CUB)")]}]}
J
out=$(bash grader/kit/calibrate.sh "$T/gpu.json" 2> "$T/err")
rc=$?
[ $rc = 0 ] && [ "$(grep -v '^#' <<< "$out" | sed 's/ *#.*//')" = "lab9 transposeSmemPad speed fraction 0.65
lab9 transposeSmemUnrollPad speed fraction 0.65
lab7 reduceSmem speed fraction 0.45" ] && grep -q "^# speed thresholds measured on NVIDIA H200, sm_90: 0.8 of" <<< "$out" &&
    grep -q "lab7 reduceSmem .*# the solution: 58% of CUB (fail)" <<< "$out" &&
    ok "0.8 of what each solution reached, down to 0.05 (83% -> 0.65, 86% -> 0.65, 58% -> 0.45), the GPU named" ||
    bad "fragment (exit $rc): $out $(cat "$T/err")"
out=$(bash grader/kit/calibrate.sh "$T/gpu.json" 0.95 2>&1)
grep -q "^lab9 transposeSmemUnrollPad speed fraction 0.8 " <<< "$out" && ok "MARGIN 0.95: 86% -> 0.8" || bad "margin: $out"
# the fragment is a course file the grader reads: lab 9's table says the fractions
grep -v "^lab7" <<< "$(bash grader/kit/calibrate.sh "$T/gpu.json" 2> /dev/null)" > "$T/course.conf"
table=$("$GRADER" --course "$T/course.conf" --describe lab9 2>&1 | jq -r .table)
grep -q "^transposeSmemPad .*speed-fraction=0.65" <<< "$table" && ok "the grader reads the fragment back: transposeSmemPad speed-fraction=0.65" ||
    bad "the grader's table: $table"
sed 's/"status": "pass", "points": 0, "max_points": 2, "message": "m", "measured": "[^"]*"/"status": "not-measured", "points": 0, "max_points": 2, "message": "speed not measured: no GPU", "measured": ""/' "$T/gpu.json" > "$T/emu.json"
out=$(bash grader/kit/calibrate.sh "$T/emu.json" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "speed was not measured, nothing to propose" <<< "$out" && grep -q "lab9 transposeSmemPad: speed not-measured" <<< "$out" &&
    ok "no GPU: exit 1, each speed not measured named" || bad "emulated (exit $rc): $out"
bash grader/kit/calibrate.sh "$T/none.json" > "$T/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "make calibrate grades the reference solutions" "$T/out" && ok "no grade: exit 2, what to do" || bad "no grade (exit $rc): $(cat "$T/out")"
echo "calibrate tests: $passed passed, $failed failed"
[ $failed = 0 ]
