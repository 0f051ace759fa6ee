#!/usr/bin/env bash
# check-gpu.sh BUILD GRADER - the tests that need a GPU (make check-gpu):
#   1. every solution scores full marks (its report, with measured values, is printed);
#   2. every skeleton loses points;
#   3. without counters nothing passes silently;
#   4. every planted wrong variant in tests/planted/manifest.tsv is caught with
#      the message a student would see, and a kernel that crashes or hangs
#      does not cost the other kernels their grade.
# CHECK_GPU_METER=1: every grade measures through a meter server, as in a
# batch (smemlab-grade --serve-meter, started again whenever a kernel ends it).
set -u
build=${1:?usage: check-gpu.sh BUILD GRADER}
grader=${2:?usage: check-gpu.sh BUILD GRADER}
expect=$build/tests/expect
out=$build/gpu-results
if [ ! -f "$build/libsmemlab-trace.so" ]; then # the race check and the 64-bit rule need it
    echo "check-gpu: the trace backend is not built, so the race checks cannot pass;" \
         "make trace-backend says why (the Compute Sanitizer of a full CUDA Toolkit)" >&2
    exit 1
fi
rm -rf "$out" # results of an earlier run must not answer for this one
mkdir -p "$out"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }

if [ -n "${CHECK_GPU_METER:-}" ]; then
    sock=$out/meter.sock
    ( while :; do "$grader" --serve-meter "$sock"; sleep 0.2; done ) 2> "$out/meter.log" &
    server_loop=$!
    trap 'pkill -P $server_loop; kill $server_loop 2> /dev/null' EXIT
    printf '#!/bin/sh\nexec "%s" --meter-socket "%s" "$@"\n' "$grader" "$sock" > "$out/grade-via-meter"
    chmod +x "$out/grade-via-meter"
    grader=$out/grade-via-meter
    for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
    echo "== every grade through the meter server at $sock =="
fi

labs=$("$grader" --list | awk '/^lab[0-9]/ {print $1}')

echo "== 1. solutions score full marks =="
for lab in $labs; do
    [ -f "$build/solutions/$lab.so" ] || { bad "$lab: solution not built"; continue; }
    "$grader" --solutions --verbose --build-dir "$build" --json "$out/solution-$lab.json" "$lab" \
        | tee "$out/solution-$lab.txt"
    rc=${PIPESTATUS[0]}
    why=$("$expect" "$out/solution-$lab.json" full)
    [ "$rc" = 0 ] && [ -z "$why" ] && ok "$lab solution: full marks" || bad "$lab solution (exit $rc): $why"
done

echo "== 2. skeletons do not pass =="
for lab in $labs; do
    [ -f "$build/$lab.so" ] || { bad "$lab: skeleton not built"; continue; }
    "$grader" --build-dir "$build" --json "$out/skeleton-$lab.json" "$lab" > "$out/skeleton-$lab.txt"
    rc=$?
    why=$("$expect" "$out/skeleton-$lab.json" not-full)
    [ "$rc" = 1 ] && [ -z "$why" ] && ok "$lab skeleton: $(grep '^Score' "$out/skeleton-$lab.txt")" \
        || bad "$lab skeleton (exit $rc): $why"
done

echo "== 3. without counters: correctness and speed graded, counters 'not measured', exit 4 =="
for lab in lab1 lab6; do
    json=$out/no-counters-$lab.json
    "$grader" --solutions --no-counters --build-dir "$build" --json "$json" "$lab" \
        > "$out/no-counters-$lab.txt"
    rc=$?
    case $lab in
    lab1) why=$("$expect" "$json" check setRowReadCol correct pass)
          why+=$("$expect" "$json" check setRowReadCol load-conflicts not-measured "not measured") ;;
    lab6) why=$("$expect" "$json" check conv2dTiled correct pass)
          why+=$("$expect" "$json" check conv2dTiled speed pass)
          why+=$("$expect" "$json" check conv2dTiled global-loads not-measured "not measured") ;;
    esac
    [ "$rc" = 4 ] && [ -z "$why" ] && ok "$lab --no-counters: exit 4, $(grep '^Score' "$out/no-counters-$lab.txt")" \
        || bad "$lab --no-counters (exit $rc): $why"
done

echo "== 4. planted wrong variants are caught =="
while IFS=$'\t' read -r file lab kernel check text; do
    [ "$file" = file ] && continue
    name=${file%.cu}
    json=$out/planted-$name.json
    if [ ! -f "$json" ]; then
        "$grader" --lib "$build/planted/$name.so" --json "$json" "$lab" > "$out/planted-$name.txt"
        echo "--- $name: exit $?"
        grep -E '^(  FAIL|        hint)' "$out/planted-$name.txt" | head -n 6
    fi
    if [ "$check" = host-printed ]; then # graded in full; what it printed is kept apart
        why=$("$expect" "$json" full)$("$expect" "$json" printed "$text")
        [ -z "$why" ] && ok "$name: full marks, and its output shown apart: \"$text\"" \
            || bad "$name: $why"
        continue
    fi
    if [ "$check" = full-marks ]; then # a right way the exercise did not show: nothing lost
        why=$("$expect" "$json" full)
        [ -z "$why" ] && ok "$name: full marks ($text)" || bad "$name: $why"
        continue
    fi
    if [ "$check" = not-graded ]; then # the library is refused as a whole
        why=$("$expect" "$json" not-graded "$text")
        [ -z "$why" ] && ok "$name: not graded, \"$text\"" || bad "$name: $why"
        continue
    fi
    why=$("$expect" "$json" check "$kernel" "$check" fail "$text")
    [ -z "$why" ] && ok "$name: $kernel $check fails with \"$text\"" || bad "$name: $why"
    case $text in
    "cuda error"|"timed out"|"not a record"*|"ended the program"|"crashed:"*|"did not return"*)
        why=$("$expect" "$json" others-correct "$kernel")
        [ -z "$why" ] && ok "$name: the other kernels are still graded" || bad "$name: $why" ;;
    esac
done < tests/planted/manifest.tsv

if [ -n "${CHECK_GPU_METER:-}" ]; then
    measured=$(grep -c ': measured lab' "$out/meter.log")
    echo "meter server: $measured labs measured, $(grep -c 'declined a job' "$out/meter.log") declined" \
         "(--no-counters), $(grep -c 'measuring for graders' "$out/meter.log") server starts"
    [ "$measured" -gt 0 ] && ok "the grades went through the meter server" || bad "no grade reached the meter server"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
