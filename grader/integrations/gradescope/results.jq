# results.jq - grade-submission.sh's result.json -> Gradescope's results.json
# (the autograder specification: score, execution_time, output, tests[]).
# One test per check of the grader, named "kernel: check"; a submission that
# does not compile, cannot be graded or is empty gets score 0 and one failed
# test that says why, so the student sees the reason on the results page. The
# output says what graded it and how (result.json's provenance).

# A source line behind a verdict, worded as the grader's check_line_text words it.
def degree:
  (if .ideal > 0 then .wavefronts / .ideal else 1 end) as $d
  | if $d < 1.005 then "conflict-free"
    elif (($d - ($d | round)) | fabs) < 0.005 then "\($d | round)-way"
    else (($d * 100) | round) as $c
         | "\($c / 100 | floor).\($c % 100 | tostring | if length == 1 then "0" + . else . end)-way" end;
def line_text:
  (if .line > 0 then "\(.file):\(.line)" else .file end) as $at  # unnamed: "pc 0xe0"
  | if .requests > 0 then "at \($at)  \(.op)  \(degree) (\(.wavefronts) wavefronts / \(.requests) requests)"
    else "at \($at)  \(.op)" end;

def check_output:
  [ .message,
    (if (.measured // "") != "" then "measured: \(.measured)" else empty end),
    (if (.expected // "") != "" then "expected: \(.expected)" else empty end),
    (if (.hint // "") != "" then "hint: \(.hint)" else empty end),
    ((.lines // [])[:4][] | line_text),  # the worst four, as the text report (check.h CHECK_TEXT_LINES)
    (if (.bank_map // "") != "" then (.bank_map | rtrimstr("\n")) else empty end) ]
  | join("\n");

# Only a pass passes, and only a check with a verdict fails: a check not measured or
# not graded here is worth 0 of 0 with no status (as smemlab-batch's Gradescope files),
# one that waits for another ("waiting") keeps its points to win and has no status
# yet; a status not known here fails.
def gs_status: if . == "pass" then "passed" else "failed" end;
def apart: .status == "not-measured" or .status == "not-graded";
def gs_test:
  if apart then
    { name: "\(.kernel): \(.check) (\(if .status == "not-graded" then "not graded" else "not measured" end) here)",
      score: 0, max_score: 0 }
  elif .status == "waiting" then
    { name: "\(.kernel): \(.check) (not run yet)", score: .points, max_score: .max_points }
  else
    { name: "\(.kernel): \(.check)", score: .points, max_score: .max_points, status: (.status | gs_status) }
  end
  + { output: check_output, visibility: "visible" };

. as $r
| ($r.grader.labs[0] // null) as $lab
| if $r.status == "graded" then
    { score: $lab.points,
      execution_time: ($r.seconds | round),
      output: "\($r.lab): \($lab.points)/\($lab.max_points) points\(if ($r.provenance // "") != "" then "; graded by: \($r.provenance)" else "" end)\n\n\($r.report)",
      output_format: "text",
      tests: [ $lab.checks[] | gs_test ] }
  else
    ($r.reason | if $r.status == "not-graded" then "not graded: \(.)" else . end) as $why
    | { score: 0,
        execution_time: ($r.seconds | round),
        output: "\($r.lab): \($why)\(if $r.status == "not-compiled" then "\n\n\($r.build_log)" elif $r.report != "" then "\n\n\($r.report)" else "" end)",
        output_format: "text",
        tests: [ { name: "\($r.lab): \($r.status)",
                   score: 0,
                   max_score: 0,
                   status: "failed",
                   output: (if $r.status == "not-compiled" then "\($why)\n\n\($r.build_log)" else $why end),
                   visibility: "visible" } ] }
  end
