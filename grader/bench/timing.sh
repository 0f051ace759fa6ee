# timing.sh - sourced by the bench scripts (loops.sh, emulated.sh): wall times
# of commands and their median.
now() { date +%s.%N; }
# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# time_it CMD...: wall seconds of one run (its output to /dev/null)
time_it() { local t0; t0=$(now); "$@" > /dev/null 2>&1; awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}'; }
# median_of N CMD...: the median wall time of N runs
median_of() { local n=$1 i; shift; for ((i = 0; i < n; i++)); do time_it "$@"; echo; done | median; }
