#!/usr/bin/env bash
# loops.sh BUILD GRADER BARE - the loops of issue 18 measured in one run (make
# bench-loops): a clean build, make grade of every lab (on this machine's GPU,
# or emulated where there is none), labs 1-4 against a bare program running
# the same kernels, where labs 5 and 6 spend their time (and the measured
# launch beside the same launch plain), and the last times make check,
# make check-gpu and .ci/run wrote. Each figure names the machine it ran on.
set -u
build=${1:?usage: loops.sh BUILD GRADER BARE}
grader=${2:?usage: loops.sh BUILD GRADER BARE}
bare=${3:?usage: loops.sh BUILD GRADER BARE}
reps=${LOOPS_REPS:-3}
cores=$(nproc)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
here_machine="$(hostname), $cores cores, ${gpu:-no GPU}"
. "$(dirname "$0")/timing.sh"
row() { printf '| %-40s | %-28s | %-10s | %s |\n' "$1" "$2" "$3" "$4"; }

echo "bench-loops on $here_machine ($(date -u +%Y-%m-%dT%H:%MZ))"
row loop measured goal machine
row --- --- --- ---

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$(time_it make --no-print-directory BUILD="$tmp/build" lab3)
row "clean make lab3" "$t s" "$([ "$cores" -ge 8 ] && echo '<= 5 s' || echo '<= 10 s')" "$here_machine"

mode=$([ -n "$gpu" ] && echo "" || echo " (emulated)")
declare -A grade_s
for lab in lab1 lab2 lab3 lab4 lab5 lab6; do
    [ -f "$build/solutions/$lab.so" ] || { row "make grade $lab" "not built" "" "$here_machine"; continue; }
    s=$(median_of "$reps" "$grader" --solutions --build-dir "$build" "$lab")
    grade_s[$lab]=$s
    case $lab in
    lab5) goal=$([ -n "$gpu" ] && echo '<= 3 s' || echo '<= 30 s') ;;
    lab6) goal=$([ -n "$gpu" ] && echo '<= 2 s' || echo '<= 20 s') ;;
    *) goal=$([ -n "$gpu" ] && echo '<= 1.5x bare' || echo '<= 2 s') ;;
    esac
    row "make grade $lab$mode (median of $reps)" "$s s" "$goal" "$here_machine"
done

if [ -n "$gpu" ]; then
    for lab in lab1 lab2 lab3 lab4; do
        [ -n "${grade_s[$lab]:-}" ] || continue
        launchers=$("$grader" --list | awk -v l="$lab" '$1 ~ /^lab/ {on = ($1 == l)} on && /^ +[a-zA-Z]/ && !/optional/ {print "launch_" $1}')
        b=$(median_of "$reps" "$bare" "$build/solutions/$lab.so" $launchers)
        row "bare program, $lab's kernels" "$b s (grade $(awk -v g="${grade_s[$lab]}" -v b="$b" 'BEGIN {printf "%.2fx", g / b}'))" "" "$here_machine"
    done
    # labs 5 and 6: where the time goes (SMEMLAB_TIMINGS: correct, measure, speed per
    # kernel, in lines "[timing] LAB KERNEL: PHASE SECONDS s" that the worker's
    # relayed output puts behind "  | ")
    for lab in lab5 lab6; do
        SMEMLAB_TIMINGS=1 "$grader" --solutions --build-dir "$build" $lab > "$tmp/t" 2>&1
        sed -n 's/.*\[timing\] [^ ]* [^ ]*: //p' "$tmp/t" | awk '$2 + 0 == $2 {s[$1] += $2} END {for (p in s) printf "%s %.2f\n", p, s[p]}' |
            sort | while read -r phase secs; do row "$lab $phase phase, every kernel" "$secs s" "" "$here_machine"; done
        # the instrumented (measured) launch against the same launch plain: the
        # whole measured step, and the patched kernel's launch alone (the trace's
        # "[timing] trace: ..." lines come before their kernel's)
        awk '/\[timing\] trace: patched launch/ {k += $(NF - 1)}
             /\[timing\] trace: analysis/ {a += $(NF - 1)}
             /: measured launch / {
                 sub(/.*\[timing\] [^ ]* /, ""); sub(/,/, "")
                 kernel = $1; sub(/:$/, "", kernel)
                 printf "%s %s %s %.4f %.2f %.0fx\n", kernel, $4, $9, k, a, k / $9
                 k = 0; a = 0 }' "$tmp/t" |
            while read -r kernel m p k a kx; do
                row "$lab $kernel measured step" "$m s (analysis $a s), plain launch $p s" "" "$here_machine"
                row "$lab $kernel patched launch" "$k s, plain $p s ($kx)" "<= 2x plain" "$here_machine"
            done
    done
fi

for f in "$build/tests/check-time.txt:make check" "$build/gpu-results/time.txt:make check-gpu" "$build/ci-time.txt:.ci/run"; do
    file=${f%%:*} name=${f#*:}
    if [ -f "$file" ]; then
        read -r secs machine < "$file"
        case $name in "make check") goal='<= 180 s' ;; "make check-gpu") goal='<= 120 s' ;; *) goal='<= 360 s' ;; esac
        row "$name (last run)" "$secs s" "$goal" "$machine"
    else
        row "$name (last run)" "not run here yet" "" ""
    fi
done
