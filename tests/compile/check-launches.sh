#!/usr/bin/env bash
# check-launches.sh BUILD GRADER - the recorder without a GPU (make check):
#   1. every solution's launchers are recorded and accepted;
#   2. every row of tests/planted/launches.tsv holds: that launcher of that
#      planted variant is accepted (ok) or refused (FAIL) with those words, or
#      what the variant's host code printed is shown with those words;
#   3. a grader killed while a launcher hangs leaves no recorder behind.
set -u
build=${1:?usage: check-launches.sh BUILD GRADER}
grader=${2:?usage: check-launches.sh BUILD GRADER}
out=$build/launch-results
rm -rf "$out" && mkdir -p "$out"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }

shopt -s nullglob
for lib in "$build"/compile-check/solutions/*/*.so "$build"/compile-check/labs/*/*.so; do
    kind=$(basename "$(dirname "$(dirname "$lib")")") # solutions or labs (the skeletons)
    lab=$(basename "$lib" .so)
    "$grader" --check-launches --lib "$lib" "$lab" > "$out/$kind-$lab.txt"
    rc=$?
    if [ "$kind" = labs ]; then
        # A skeleton's launcher may still be the student's TODO (labs 2-4 leave
        # the launch to write): refused, but with the words that say so.
        grep '^  FAIL' "$out/$kind-$lab.txt" | grep -qv 'launched no kernel of your file: write its' \
            && { bad "$lab $kind: a launcher refused for another reason"; cat "$out/$kind-$lab.txt"; } \
            || ok "$lab $kind: every launcher accepted or still a TODO"
        continue
    fi
    [ "$rc" = 0 ] && ! grep -q '^  FAIL' "$out/$kind-$lab.txt" \
        && ok "$lab $kind: every launcher accepted" \
        || { bad "$lab $kind (exit $rc)"; cat "$out/$kind-$lab.txt"; }
done

if [ ! -f tests/planted/launches.tsv ]; then # the student kit has no planted variants
    echo "check-launches: $passed passed, $failed failed (no tests/planted/ here: the hostile variants are not run)"
    [ "$failed" = 0 ]
    exit
fi

# @CONFINED@ in a row: what the recorder's reads come to here. With Landlock
# (Linux 5.13+) it may open no file but the lab library ("refused"); without,
# only seccomp's write rules hold ("allowed").
confined=$(python3 -c 'import ctypes, os; n = {"x86_64": 444, "aarch64": 444}.get(os.uname().machine, -1)
print("refused" if n > 0 and ctypes.CDLL(None, use_errno=True).syscall(n, None, 0, 1) > 0 else "allowed")')
echo "the recorder's reads here: $confined (Landlock $([ "$confined" = refused ] && echo present || echo absent))"
while IFS=$'\t' read -r file lab launcher verdict text; do
    [ "$file" = file ] && continue
    text=${text//@CONFINED@/$confined}
    name=${file%.cu}
    txt=$out/planted-$name.txt
    [ -f "$txt" ] || "$grader" --check-launches --timeout 2 \
        --lib "$build/compile-check/planted/$name.so" "$lab" > "$txt" 2>&1
    line=$(grep -E "^  (ok|FAIL|skip) +$launcher:" "$txt")
    case $verdict in
    FAIL) [[ $line == "  FAIL  $launcher:"*"$text"* ]] ;;
    ok)   [[ $line == "  ok    $launcher:"* ]] && { [ -z "$text" ] || grep -qF -- "$text" "$txt"; } ;;
    esac && ok "$name: $launcher $verdict${text:+, \"$text\"}" \
         || { bad "$name: $launcher: expected $verdict \"$text\", got: ${line:-nothing}"; }
done < tests/planted/launches.tsv

# 3. Kill the grader while the recorder spins in a launcher: nothing may stay.
hang=$build/compile-check/planted/lab1-host-hang.so
"$grader" --check-launches --timeout 30 --lib "$hang" lab1 > /dev/null 2>&1 &
gpid=$!
for _ in $(seq 50); do pgrep -f "smemlab-record $hang" >/dev/null && break; sleep 0.1; done
pgrep -f "smemlab-record $hang" >/dev/null || bad "the recorder never started"
kill -9 "$gpid"; wait "$gpid" 2>/dev/null
for _ in $(seq 50); do pgrep -f "smemlab-record $hang" >/dev/null || break; sleep 0.1; done
if pgrep -f "smemlab-record $hang" >/dev/null; then
    bad "a killed grader left its recorder running"; pkill -9 -f "smemlab-record $hang"
else
    ok "a killed grader leaves no recorder behind"
fi

# 4. The same with SIGTERM, and (as root) with the recorder switched to another
#    user, which clears the parent-death signal unless the grader sets it again.
run_as=()
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && run_as=(--run-as nobody) && chmod -R a+rX "$build"
"$grader" --check-launches --timeout 30 "${run_as[@]}" --lib "$hang" lab1 > /dev/null 2>&1 &
gpid=$!
for _ in $(seq 50); do pgrep -f "smemlab-record $hang" >/dev/null && break; sleep 0.1; done
kill -TERM "$gpid"; wait "$gpid" 2>/dev/null
for _ in $(seq 50); do pgrep -f "smemlab-record $hang" >/dev/null || break; sleep 0.1; done
if pgrep -f "smemlab-record $hang" >/dev/null; then
    bad "SIGTERM to the grader${run_as:+ (--run-as nobody)} left its recorder running"
    pkill -9 -f "smemlab-record $hang"
else
    ok "SIGTERM to the grader${run_as:+ (--run-as nobody)} leaves no recorder behind"
fi

echo "check-launches: $passed passed, $failed failed"
[ "$failed" = 0 ]
