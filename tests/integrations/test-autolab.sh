#!/usr/bin/env bash
# test-autolab.sh BUILD REFERENCE_LIB - make autolab LAB=lab3, then Autolab's
# part run for real: a temporary folder with what Autolab's grading
# container holds (the handin file lab3.cu, autograde-Makefile as Makefile,
# autograde.tar), `make` run there, and the LAST line of its output checked:
# JSON {"scores": {KERNEL: points}, "scoreboard": [total, points...]} with one
# score per kernel of lab 3 (the grader's --list).
#
# The folder is made by mktemp -d and left private (0700), as the documented
# try-out leaves it: run as root, the student's code is built and run as
# nobody, who cannot enter it (the scripts then grade from a readable copy of
# the kit).
#
# REFERENCE_LIB (the lab 3 solution built by make check-compile) says what to
# expect: the solution scores the lab's maximum, on a GPU or, without one, by
# emulation, and the output says which ("Graded by: ..."); should this grader
# not grade it here, every score is 0 and the output says why.
set -u
cd "$(dirname "$0")/../.."
. tests/integrations/lib.sh
[ $# -eq 2 ] || { echo "usage: $0 BUILD REFERENCE_LIB" >&2; exit 2; }
BUILD=$1 REF_LIB=$2
need_tools "the Autolab test" jq tar
GRADER=$BUILD/smemlab-grade
[ -x "$GRADER" ] && [ -f "$REF_LIB" ] || { echo "build $GRADER and $REF_LIB first (make check-integrations)" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-autolab-test.XXXXXX") || exit 2 # 0700, as the try-out's
trap '[ -n "${KEEP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"' EXIT

# make check (the fast tier): make autolab and Autolab's grading folder, its
# kit seeded; make check-full: the documented try-out, the grader built from nothing.
if in_tier fast; then
if ! make -s --no-print-directory autolab LAB=lab3 BUILD="$BUILD" >"$TMP/make.out" 2>&1; then
    not_ok "make autolab LAB=lab3" "$TMP/make.out"
    finish_tests test-autolab
    exit 1
fi
out=$BUILD/autolab/lab3
if [ -f "$out/autograde-Makefile" ] && [ -f "$out/autograde.tar" ]; then
    ok "make autolab wrote autograde-Makefile and autograde.tar ($(stat -c %s "$out/autograde.tar") bytes)"
else
    not_ok "make autolab wrote autograde-Makefile and autograde.tar" "$TMP/make.out"
fi
if tar -tf "$out/autograde.tar" | grep -q 'solutions/\|planted'; then
    not_ok "autograde.tar holds no solutions or planted variants"
else
    ok "autograde.tar holds no solutions or planted variants"
fi
kernels=$("$GRADER" --list | awk '/^lab[0-9]/ { on = ($1 == "lab3"); next } on && NF { print $1 }' | jq -R . | jq -s -c .)
if grep -qF "$(jq -r 'join(" ")' <<<"$kernels")" "$TMP/make.out"; then
    ok "make autolab names the problems to create: $(jq -r 'join(", ")' <<<"$kernels")"
else
    not_ok "make autolab names the problems to create" "$TMP/make.out"
fi

# The autoresult's shape: a score per kernel, the scoreboard's total first.
SHAPE='(.scores | keys_unsorted) == $k and all(.scores[]; type == "number")
  and (.scoreboard | length) == ($k | length) + 1
  and .scoreboard[0] == ([.scores[]] | add)
  and .scoreboard[1:] == [$k[] as $n | .scores[$n]]'

# grade NAME: run make in Autolab's layout with $TMP/NAME.cu as the handin;
# the folder is kept between runs, as a second make there is cheaper.
job=$TMP/job
# Autolab runs a plain make, not one inside make check: MAKELEVEL would make
# it print "Leaving directory" after the autoresult.
AUTOLAB_MAKE="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make"
mkdir -p "$job"
cp "$out/autograde-Makefile" "$job/Makefile"
cp "$out/autograde.tar" "$job/"
# The kit as the Makefile unpacks it: make autolab shipped this run's grader, jail and
# support.o prebuilt (build/PREBUILT), so a handin costs its own build and the grading.
tar -xf "$job/autograde.tar" -C "$job"
jk=$job/smemlab-autolab/kit
if [ -f "$jk/build/PREBUILT" ] && [ "$(cat "$jk/VERSION")" = "$(cat "$BUILD/.kit-version")" ] &&
   ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$jk" lab-tools 2>&1 | grep -qE '^  (CC|AR|LINK|NVCC) '; then
    ok "autograde.tar ships the grader prebuilt, this kit's version ($(cat "$jk/VERSION")): make lab-tools there builds nothing"
else not_ok "autograde.tar's kit is not prebuilt and up to date: every handin would build the grader"; fi
built_at=$(stat -c %Y "$jk/build/smemlab-grade")
grade() {
    cp "$TMP/$1.cu" "$job/lab3.cu"
    t0=$SECONDS
    (cd "$job" && $AUTOLAB_MAKE) </dev/null >"$TMP/$1.out" 2>&1
    rc=$?
    echo "  ($1: make exit $rc in $((SECONDS - t0))s)" | tee -a "$TMP/grade-times"
    tail -n 1 "$TMP/$1.out" >"$TMP/$1.last"
    if [ $rc -eq 0 ]; then ok "$1: make exits 0"; else not_ok "$1: make exits 0 (got $rc)" "$TMP/$1.out"; fi
    check "$1: the last line is the autoresult, one score per kernel" "$TMP/$1.last" "$SHAPE" --argjson k "$kernels"
}

cp solutions/lab3-padding/lab3.cu "$TMP/solution.cu"
grade solution
if [ "$(stat -c %Y "$jk/build/smemlab-grade")" = "$built_at" ] && ! grep -q "builds its grader here" "$TMP/solution.out"; then
    ok "the handin graded with the shipped grader (built nothing): $(grep -o 'solution: make exit [0-9]* in [0-9]*s' "$TMP/grade-times" 2>/dev/null || true)"
else not_ok "the handin built the grader again" "$TMP/solution.out"; fi
if ! grep -q "make lab[0-9]* && make grade" "$TMP/solution.out"; then ok "the feedback names no make command of the kit (--handin)"
else not_ok "the feedback tells an Autolab student to run make" "$TMP/solution.out"; fi
not_graded_reason # sets reason
if [ -n "$reason" ]; then
    check "solution: every score 0 without a GPU" "$TMP/solution.last" 'all(.scores[]; . == 0)'
    if grep -qF "not graded: $reason" "$TMP/solution.out"; then ok "solution: the output says not graded: $reason"
    else not_ok "solution: the output says not graded: $reason" "$TMP/solution.out"; fi
else
    check "solution, as root from a private (0700) folder: full marks (every check passed)" "$TMP/solution.last" 'all(.scores[]; . > 0)'
    if grep -Eq '^Score: ([0-9]+)/\1( |$)' "$TMP/solution.out"; then ok "solution: the report says full marks"
    else not_ok "solution: the report says full marks" "$TMP/solution.out"; fi
    if gpu_present; then prov_re='^Graded by: (trace|counters) on .*, sm_[0-9]+$'
    else prov_re='^Graded by: emulated on the CPU: no GPU found; speed not measured$'; fi
    if grep -Eq "$prov_re" "$TMP/solution.out" && ! grep -q "not graded" "$TMP/solution.out"; then
        ok "solution: the output says what graded it ($(grep -m1 '^Graded by:' "$TMP/solution.out"))"
    else not_ok "solution: the output says what graded it" "$TMP/solution.out"; fi
fi
printf '\n\n' >"$TMP/blank.cu"
grade blank
check "an empty handin: every score 0" "$TMP/blank.last" 'all(.scores[]; . == 0)'
if grep -qx "empty submission: lab3.cu holds only spaces and line ends (2 bytes)" "$TMP/blank.out"; then ok "an empty handin: \"empty submission\""
else not_ok "an empty handin: \"empty submission\"" "$TMP/blank.out"; fi

awk '/^__global__/ && !done { print "int broken = ;"; done = 1 } { print }' \
    solutions/lab3-padding/lab3.cu >"$TMP/broken.cu"
line=$(grep -n '^int broken = ;' "$TMP/broken.cu" | cut -d: -f1)
grade broken
check "compile error: every score 0" "$TMP/broken.last" 'all(.scores[]; . == 0)'
if grep -qF "lab3.cu($line): error" "$TMP/broken.out"; then ok "compile error: nvcc's message for line $line is shown"
else not_ok "compile error: nvcc's message for line $line is shown" "$TMP/broken.out"; fi

# Labs 8, 9 and 10 in the same job folder (the kit already built there): each one's Makefile,
# its kernels' autoresult, the solution's scores.
for lab in lab8 lab9 lab10; do
if make -s --no-print-directory autolab LAB=$lab BUILD="$BUILD" >"$TMP/make-$lab.out" 2>&1 &&
   grep -qx "LAB := $lab" "$BUILD/autolab/$lab/autograde-Makefile"; then
    ok "make autolab LAB=$lab: its autograde-Makefile grades $lab"
    cp "$BUILD/autolab/$lab/autograde-Makefile" "$job/Makefile"
    cp solutions/$lab-*/$lab.cu "$job/$lab.cu"
    (cd "$job" && $AUTOLAB_MAKE) </dev/null >"$TMP/$lab.out" 2>&1
    tail -n 1 "$TMP/$lab.out" >"$TMP/$lab.last"
    kl=$("$GRADER" --list | awk -v lab=$lab '/^lab[0-9]/ { on = ($1 == lab); next } on && NF { print $1 }' | jq -R . | jq -s -c .)
    check "$lab: the last line is the autoresult, one score per kernel" "$TMP/$lab.last" "$SHAPE" --argjson k "$kl"
    if [ -z "$reason" ]; then
        check "$lab solution: every kernel scores (speed only on a GPU)" "$TMP/$lab.last" 'all(.scores[]; . > 0)'
    fi
    rm -f "$job/$lab.cu"
    cp "$out/autograde-Makefile" "$job/Makefile"
else
    not_ok "make autolab LAB=$lab" "$TMP/make-$lab.out"
fi
done

rm -f "$job/lab3.cu"
(cd "$job" && $AUTOLAB_MAKE) </dev/null >"$TMP/none.out" 2>&1
tail -n 1 "$TMP/none.out" >"$TMP/none.last"
check "no handin file: still an autoresult last, every score 0" "$TMP/none.last" "$SHAPE and all(.scores[]; . == 0)" --argjson k "$kernels"

fi # the fast tier

if in_tier full; then
# The documented try-out, as written (docs/instructors.md#autolab): the skeleton is
# graded (not "does not compile") and the last line is the one the page shows. A
# reader's shell: no make above it, their TMPDIR.
if [ "$BUILD" != build ]; then
    echo "SKIP: the documented try-out uses the kit's build/ (BUILD=build)"
else
    block=$(doc_block "## Autolab {#autolab}")
    want=$(sed -n 's/^# \({"scores".*\)$/\1/p' <<<"$block")
    t0=$SECONDS
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL bash -c "$block"'
        echo "TRYOUT_JOB=$job"' >"$TMP/tryout.out" 2>&1
    tryout=$(sed -n 's/^TRYOUT_JOB=//p' "$TMP/tryout.out")
    got=$(grep -v '^TRYOUT_JOB=' "$TMP/tryout.out" | tail -n 1)
    # the page pipes make into tail -n 1: its folder, made again, shows the rest
    [ -z "$tryout" ] || (cd "$tryout" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make) >"$TMP/tryout-again.out" 2>&1
    if [ -n "$want" ] && [ "$got" = "$want" ] && grep -q "^Score: 0/15" "$TMP/tryout-again.out" &&
       grep -q "^Graded by: " "$TMP/tryout-again.out" && ! grep -q "does not compile" "$TMP/tryout-again.out"; then ok "the documented try-out ($(id -un), from its mktemp -d folder, in $((SECONDS - t0))s) prints the page's last line, the skeleton graded (Score: 0/15): $got"
    else not_ok "the documented try-out printed '$got', the page says '$want'" "$TMP/tryout.out"; fi
    case $tryout in "${TMPDIR:-/tmp}"/tmp.*) rm -rf "$tryout" ;; esac
fi

fi # the full tier

finish_tests test-autolab
