#!/usr/bin/env bash
# emulated.sh BUILD GRADER - how long grading each lab's solution takes by
# emulation on this machine (make bench prints it first; on a machine without
# a GPU it is all make bench can time). Wall time of smemlab-grade --measure
# emulator, the median of three runs, against issue 19's goals on 2 cores.
set -u
build=${1:?usage: emulated.sh BUILD GRADER}
grader=${2:?usage: emulated.sh BUILD GRADER}
. "$(dirname "$0")/timing.sh"
echo "Grading by emulation on $(hostname), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
printf '%-6s %10s %8s  %s\n' lab seconds goal score
total=0
for lab in lab1 lab2 lab3 lab4 lab5 lab6 lab10; do
    med=$(median_of 3 "$grader" --measure emulator --solutions --build-dir "$build" "$lab")
    score=$("$grader" --measure emulator --solutions --build-dir "$build" "$lab" 2>&1 | grep '^Score' | head -n1)
    total=$(awk -v a="$total" -v b="$med" 'BEGIN {printf "%.2f", a + b}')
    case $lab in lab5) goal=30 ;; lab6) goal=20 ;; *) goal=2 ;; esac
    printf '%-6s %10s %8s  %s\n' "$lab" "$med" "<= $goal" "$score"
done
printf '%-6s %10s %8s\n' all "$total" "<= 120"
