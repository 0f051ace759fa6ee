#!/usr/bin/env bash
# test-make-grade.sh - `make grade` ends with the grader's exit status.
#
# make exits 2 whenever a recipe fails; what the kit promises is that the
# grade recipe itself exits with the grader's status, which make prints as
# "Error N", and that a line before it says what the status means; status 4
# (nothing failed, something not measured here: speed, emulated) is success. A fake
# grader (GRADER=..., kept from being rebuilt with make -o) exits with each
# status in turn. And every target that grades on a GPU builds the trace
# backend first (make -n). Needs no GPU and no nvcc.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-make-grade.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
B=$TMP/build
mkdir -p "$B/solutions"
cat >"$TMP/fake-grader" <<'SH'
#!/bin/sh
echo "fake grader: $*"
while [ $# -gt 1 ]; do # --html DIR: lab1's page, as the grader writes it
    [ "$1" = --html ] && mkdir -p "$2" && echo "<p>page</p>" >"$2/lab1.html"
    shift
done
exit "${FAKE_STATUS:-0}"
SH
cat >"$TMP/fake-open" <<'SH'
#!/bin/sh
echo "$1" >>"${0%/*}/opened"
SH
chmod +x "$TMP/fake-grader" "$TMP/fake-open"

passed=0
failed=0
OUT=$TMP/out
RC=0

# mk ARGS...: make in the kit, with the fake grader, the programs it runs beside
# (the recorder, the fake CUDA runtime) and a lab library taken as built: what make
# grade does with the grader's status is the subject, not building a grader again
# in BUILD (the whole archive, its CUB and fatbinary through nvcc: 10 CPU-s)
mk() {
    env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -C "$ROOT" BUILD="$B" \
        GRADER="$TMP/fake-grader" -o "$TMP/fake-grader" -o "$B/smemlab-record" -o "$B/record/libcudart.so.13" \
        -o "$B/lab1.so" -o "$B/solutions/lab2.so" \
        "$@" >"$OUT" 2>&1
    RC=$?
}
expect() { # NAME MAKE_STATUS SUBSTRING...
    local name=$1 want=$2 s
    shift 2
    if [ "$RC" -ne "$want" ]; then
        failed=$((failed + 1)); echo "FAIL: $name: make exited $RC, expected $want"; sed 's/^/  | /' "$OUT"; return
    fi
    for s in "$@"; do
        if ! grep -qF -- "$s" "$OUT"; then
            failed=$((failed + 1)); echo "FAIL: $name: output lacks \"$s\""; sed 's/^/  | /' "$OUT"; return
        fi
    done
    passed=$((passed + 1)); echo "ok: $name"
}

FAKE_STATUS=0 mk grade LAB=lab1
expect "grader status 0: make succeeds" 0 "fake grader: lab1"
if grep -qF "Error" "$OUT"; then
    failed=$((failed + 1)); echo "FAIL: status 0 printed an error"
fi
FAKE_STATUS=1 mk grade LAB=lab1
expect "grader status 1 shows as Error 1" 2 "status 1 (a check failed)" "grade] Error 1"
FAKE_STATUS=3 mk grade LAB=1
expect "grader status 3 shows as Error 3" 2 "status 3 (not graded" "grade] Error 3"
FAKE_STATUS=4 mk grade LAB=lab1
expect "grader status 4 (nothing failed, something not measured here): make succeeds" 0 "fake grader: lab1"
if grep -qF "Error" "$OUT"; then
    failed=$((failed + 1)); echo "FAIL: status 4 printed an error"
fi
FAKE_STATUS=1 mk grade LAB=lab1 GRADE_FLAGS=--verbose
expect "GRADE_FLAGS reach the grader" 2 "fake grader: --verbose lab1" "grade] Error 1"
FAKE_STATUS=0 mk grade LAB=lab1 KERNEL=setColReadCol
expect "KERNEL=NAME grades one kernel (--kernel)" 0 "fake grader: --kernel setColReadCol lab1"
if [ -d "$ROOT/solutions" ]; then
    FAKE_STATUS=1 mk grade SOLUTIONS=1 LAB=lab2
    expect "SOLUTIONS=1 passes the status through too" 2 "fake grader: --solutions lab2" "grade] Error 1"
    FAKE_STATUS=0 mk grade SOLUTIONS=1 LAB=lab2 KERNEL=setRowReadColDyn
    expect "SOLUTIONS=1 KERNEL=NAME grades one kernel of the solution" 0 \
        "fake grader: --solutions --kernel setRowReadColDyn lab2"
else
    FAKE_STATUS=0 mk grade SOLUTIONS=1 LAB=lab2
    expect "SOLUTIONS=1 without solutions/ says so" 2 "solutions/ is not here" "grade] Error 3"
fi
FAKE_STATUS=0 mk grade LAB=lab1 GPU=kepler
expect "GPU=kepler grades as the course's K40 (--gpu kepler)" 0 "fake grader: --gpu kepler lab1"
FAKE_STATUS=0 GPU=kepler mk grade LAB=lab1
if grep -qF -- "--gpu" "$OUT"; then
    failed=$((failed + 1)); echo "FAIL: a GPU variable in the environment reached the grader"
else
    passed=$((passed + 1)); echo "ok: GPU from the environment is not the grader's (the command line's only)"
fi
mk grade LAB=lab11
expect "unknown lab" 2 "Unknown lab 'lab11'" "grade] Error 2"
# The report page: make grade asks for it in build/report/; OPEN=1 opens it after
# the report, and the grader's status still ends the recipe.
FAKE_STATUS=1 mk grade LAB=lab1 OPEN=1 OPENER="$TMP/fake-open"
expect "make grade writes the page (--html BUILD/report)" 2 "fake grader: lab1 --html $B/report" "grade] Error 1"
if [ "$(cat "$TMP/opened" 2>/dev/null)" = "$B/report/lab1.html" ]; then
    passed=$((passed + 1)); echo "ok: OPEN=1 opens build/report/lab1.html"
else
    failed=$((failed + 1)); echo "FAIL: OPEN=1 opened '$(cat "$TMP/opened" 2>/dev/null)', not $B/report/lab1.html"
fi
FAKE_STATUS=0 mk grade LAB=lab1 OPEN=1 OPENER=
expect "OPEN=1 without a browser names the page" 0 "open $B/report/lab1.html in a browser"
rm -f "$TMP/opened"
FAKE_STATUS=0 mk grade LAB=lab1 OPENER="$TMP/fake-open"
if [ ! -e "$TMP/opened" ]; then
    passed=$((passed + 1)); echo "ok: without OPEN=1 nothing is opened"
else
    failed=$((failed + 1)); echo "FAIL: make grade without OPEN=1 opened the page"
fi

# Every target that grades on a GPU builds the trace backend first: without it
# the grader falls back to hardware counters, which most machines do not let
# it read, and correct kernels lose their conflict checks (check-gpu-batch did,
# on a fresh GPU machine). A stand-in sanitizer.h makes the backend buildable.
mkdir -p "$TMP/sanitizer/include" && : >"$TMP/sanitizer/include/sanitizer.h"
gpu_targets="grade check-gpu-batch bench-batch check-truth-gpu"
# the student kit has no solutions/: there check-gpu and bench-loops only say so
[ -d "$ROOT/solutions" ] && gpu_targets="$gpu_targets check-gpu bench-loops"
for target in $gpu_targets; do
    if env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n --no-print-directory -C "$ROOT" BUILD="$B" \
        SANITIZER_HOME="$TMP/sanitizer" LAB=lab3 "$target" 2>/dev/null | grep -q "smemlab-trace-patches.fatbin"; then
        passed=$((passed + 1)); echo "ok: make $target builds the trace backend"
    else
        failed=$((failed + 1)); echo "FAIL: make $target grades without building the trace backend"
    fi
done

# make labN builds what a student's edit needs, the jail and the lab, and nothing of
# the grader, which make grade builds (issue 41: a clean make lab3 in <= 5 s)
plan=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n --no-print-directory -C "$ROOT" BUILD="$B" \
    SANITIZER_HOME="$TMP/sanitizer" lab3 2>/dev/null)
if grep -q "smemlab-build-jail" <<<"$plan" && grep -q "lab3.cu" <<<"$plan" \
    && ! grep -qE "libsmemlab\.a|smemlab-grade|smemlab-record|trace-patches|grader/(base|cli|grade|ptx)/" <<<"$plan"; then
    passed=$((passed + 1)); echo "ok: make lab3 builds the jail and the lab, and no grader"
else
    failed=$((failed + 1)); echo "FAIL: make lab3 builds the grader, or not the jail and the lab"
    grep -E "libsmemlab|smemlab-grade|grader/" <<<"$plan" | head -n 5 | sed 's/^/  | /'
fi

# Targets that fan out to many `make lab-lib` at once build what those share
# (the build jail, support.o) first, in the one make: on a fresh clone the
# parallel sub-makes each built it at the same moment (check-truth-gpu failed).
for target in check-truth check-truth-gpu check-gpu-batch bench-batch; do
    plan=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -n --no-print-directory -C "$ROOT" BUILD="$B" \
        SANITIZER_HOME="$TMP/sanitizer" LAB=lab3 "$target" 2>/dev/null)
    if grep -q "smemlab-build-jail" <<<"$plan" && grep -q "obj/common/support.o" <<<"$plan"; then
        passed=$((passed + 1)); echo "ok: make $target builds the jail and support.o before it fans out"
    else
        failed=$((failed + 1)); echo "FAIL: make $target leaves the jail or support.o to its parallel sub-makes"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
