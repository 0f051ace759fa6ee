#!/usr/bin/env bash
# test-formats.sh - the Gradescope and Autolab filters on a graded lab: a
# machine without a GPU never produces one, so the grader's JSON for a
# partly passing lab 3 (graded-lab3.json, the shape of smemlab-grade --json)
# goes through result.json -> results.jq / autolab.jq, and every number is
# checked against the grader's own checks.
set -u
cd "$(dirname "$0")/../.."
. tests/integrations/lib.sh
need_tools "the format test" jq
TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-formats-test.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
G=tests/integrations/graded-lab3.json

# result.json as grade-submission.sh writes it for a graded submission
jq '{lab: "lab3", status: "graded", reason: "", seconds: 12.6,
     kernels: (reduce .labs[0].checks[].kernel as $k ([]; if index([$k]) then . else . + [$k] end)),
     provenance: "trace on NVIDIA H100 80GB HBM3, sm_90",
     build_log: "", report: "the text report\n", grader: .}' "$G" >"$TMP/result.json"
# the short provenance grade-submission.sh writes is the one smemlab-batch writes
prov=$(sed -n '/^provenance() {/,/^}/p' grader/integrations/grade-submission.sh)
got=$(grader_json=$G; eval "$prov"; provenance)
[ "$got" = "trace on NVIDIA H100 80GB HBM3, sm_90" ] && ok "provenance of the H100's device line: $got" || not_ok "provenance: '$got'"

jq -f grader/integrations/gradescope/results.jq "$TMP/result.json" >"$TMP/gs.json" || not_ok "results.jq failed"
check "gradescope: score is the grader's points" "$TMP/gs.json" '.score == $g[0].labs[0].points' --slurpfile g "$G"
check "gradescope: one test per check, in order, named kernel: check (not measured here)" "$TMP/gs.json" \
    '[.tests[].name] == [$g[0].labs[0].checks[] | "\(.kernel): \(.check)\(if .status == "not-measured" then " (not measured here)" else "" end)"]' --slurpfile g "$G"
check "gradescope: test scores and maxima are the checks', one not measured here 0 of 0" "$TMP/gs.json" \
    '[.tests[] | [.score, .max_score]] == [$g[0].labs[0].checks[] | if .status == "not-measured" then [0, 0] else [.points, .max_points] end]' --slurpfile g "$G"
check "gradescope: pass -> passed, fail -> failed, not-measured no status (no verdict, as the batch's)" "$TMP/gs.json" \
    '[.tests[] | .status // "none"] == [$g[0].labs[0].checks[] | if .status == "pass" then "passed" elif .status == "fail" then "failed" else "none" end]' --slurpfile g "$G"
# a check that waits for another (the grader's "waiting"): no status, its points still to win
jq '(.grader.labs[0].checks[] | select(.kernel == "setRowReadColDynPad" and .check == "race")) |= (.status = "waiting" | .message = "waits for correct")' \
    "$TMP/result.json" > "$TMP/result-wait.json" && jq -f grader/integrations/gradescope/results.jq "$TMP/result-wait.json" > "$TMP/gs-wait.json"
check "gradescope: a waiting check: '(not run yet)', no status, 0 of its 1 point" "$TMP/gs-wait.json" \
    '(.tests[] | select(.name == "setRowReadColDynPad: race (not run yet)")) as $t
     | ($t | has("status") | not) and $t.score == 0 and $t.max_score == 1 and ($t.output | startswith("waits for correct"))'
check "gradescope: a failed check's output has message, measured, expected and hint" "$TMP/gs.json" \
    '(.tests[] | select(.name == "setRowReadColDynPad: load-conflicts") | .output) as $o
     | ($g[0].labs[0].checks[] | select(.kernel == "setRowReadColDynPad" and .check == "load-conflicts")) as $c
     | ($o | contains($c.message)) and ($o | contains("measured: " + $c.measured))
       and ($o | contains("expected: " + $c.expected)) and ($o | contains("hint: " + $c.hint))' --slurpfile g "$G"
check "gradescope: a failed check's output names its source lines, as the grader words them, and draws the bank map" "$TMP/gs.json" \
    '(.tests[] | select(.name == "setRowReadColDynPad: load-conflicts") | .output) as $o
     | ($o | contains("at lab3.cu:88  load  32-way (1024 wavefronts / 32 requests)"))
       and ($o | contains("at lab3.cu:90  load  1.50-way (48 wavefronts / 32 requests)"))
       and ($o | contains("worst warp load at lab3.cu:88: 32 lanes in bank 0"))'
check "gradescope: a line the trace did not name is given by its pc, as the grader words it" "$TMP/gs.json" \
    '(.tests[] | select(.name == "setRowReadColPad: store-conflicts") | .output)
     | contains("at pc 0xe0  store  conflict-free (32 wavefronts / 32 requests)")'
check "gradescope: a race names its two lines" "$TMP/gs.json" \
    '(.tests[] | select(.name == "setRowReadColDynPad: race") | .output)
     | contains("at lab3.cu:74  store") and contains("at lab3.cu:79  load") and (contains("pc 0x") | not)'
check "gradescope: execution_time in whole seconds, output has the score and report" "$TMP/gs.json" \
    '.execution_time == 13 and (.output | startswith("lab3: 11/14 points; graded by: trace on NVIDIA H100 80GB HBM3, sm_90\n"))
     and (.output | contains("the text report"))'

jq -c -f grader/integrations/autolab/autolab.jq "$TMP/result.json" >"$TMP/al.json" || not_ok "autolab.jq failed"
check "autolab: a score per kernel, the sum of its checks' points" "$TMP/al.json" \
    '.scores == ($g[0].labs[0].checks | group_by(.kernel) | map({key: .[0].kernel, value: (map(.points) | add)}) | from_entries)' --slurpfile g "$G"
check "autolab: scoreboard is total then the kernels in the lab's order" "$TMP/al.json" \
    '.scoreboard == [$g[0].points, .scores.setRowReadColPad, .scores.setRowReadColDynPad]' --slurpfile g "$G"
if [ "$(wc -l <"$TMP/al.json")" -eq 1 ]; then ok "autolab: the autoresult is one line"; else not_ok "autolab: the autoresult is one line" "$TMP/al.json"; fi

finish_tests test-formats
