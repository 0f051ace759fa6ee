# autolab.jq - grade-submission.sh's result.json -> Autolab's autoresult, the
# JSON that must be the last line of the autograder's output:
#   {"scores": {"KERNEL": points, ...}, "scoreboard": [total, KERNEL points...]}
# One Autolab problem per kernel of the lab, named exactly as the kernel
# (make autolab prints the names and maximum points to create them with).
# A submission that does not compile or cannot be graded scores 0 on each.

. as $r
| ($r.grader.labs[0].checks // []) as $checks
| [ $r.kernels[]
    | . as $k
    | { key: $k,
        value: (if $r.status == "graded"
                then ([ $checks[] | select(.kernel == $k) | .points ] | add // 0)
                else 0 end) } ]
| from_entries as $scores
| { scores: $scores,
    scoreboard: ([ ([ $scores[] ] | add // 0) ] + [ $r.kernels[] | $scores[.] ]) }
