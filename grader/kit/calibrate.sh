#!/usr/bin/env bash
# calibrate.sh GRADE.json [MARGIN] - speed thresholds for this GPU, as a course file
# fragment (make calibrate; docs/instructors.md#course).
#
# GRADE.json is smemlab-grade --json of the reference solutions graded on the
# instructor's GPU (--course none, so that every speed check runs). Each speed
# check's measured text says what fraction of its roof the solution reached
# ("0.412 ms, 652.1 GB/s (83% of copy)", check_speed in grader/problems/traffic.c);
# the threshold proposed is MARGIN (default 0.8) of it, rounded down to 0.05: the
# reference passes with room for the GPU's noise, a kernel that misses the lesson's
# point does not. One line a kernel:
#   lab9 transposeSmemPad speed fraction 0.65   # the solution: 83% of copy
# A speed check not measured (no GPU, the emulator) is an error: nothing to propose.
set -u
json=${1:?usage: calibrate.sh GRADE.json [MARGIN]}
margin=${2:-0.8}
command -v jq > /dev/null || { echo "calibrate: jq is missing: make deps-instructor (apt-get install jq)" >&2; exit 3; }
[ -s "$json" ] || { echo "calibrate: no grade in $json: make calibrate grades the reference solutions on this machine's GPU first" >&2; exit 2; }
awk -v m="$margin" 'BEGIN { exit !(m > 0 && m <= 1) }' ||
    { echo "calibrate: MARGIN must be a fraction in (0, 1], not '$margin'" >&2; exit 2; }
lines=$(jq -r --argjson m "$margin" '
    .labs[] | .id as $lab | .checks[] | select(.check == "speed")
    | if .status != "pass" and .status != "fail" then
        "error \($lab) \(.kernel): speed \(.status): \(.message)"
      else
        (.measured | capture("\\((?<pct>[0-9.]+)% of (?<ref>[^)]*)\\)")) as $c
        | (($c.pct | tonumber) / 100) as $f
        | ((($f * $m) * 20 | floor) / 20) as $t
        | "\($lab) \(.kernel) speed fraction \(if $t < 0.05 then 0.05 else $t end)   # the solution: \($c.pct)% of \($c.ref) (\(.status))"
      end' "$json") || { echo "calibrate: $json is not the grader's JSON (smemlab-grade --json)" >&2; exit 2; }
if grep -q '^error ' <<< "$lines"; then
    echo "calibrate: speed was not measured, nothing to propose (run make calibrate on the GPU that will grade):" >&2
    grep '^error ' <<< "$lines" | sed 's/^error /  /' >&2
    exit 1
fi
[ -n "$lines" ] || { echo "calibrate: $json has no speed check (labs 5 to 10 have them)" >&2; exit 1; }
gpu=$(jq -r '[.labs[].device // empty | strings] | first // "this GPU"' "$json")
echo "# speed thresholds measured on $gpu: $margin of what each reference solution reached"
echo "# (make calibrate); add them to your course file (course.conf, docs/instructors.md#course)"
echo "$lines"
