#!/usr/bin/env bash
# test-gradescope.sh BUILD REFERENCE_LIB - make gradescope LAB=lab3, then
# Gradescope's part run for real in a temporary folder laid out like theirs
# (AUTOGRADER_ROOT): the zip unpacked into source/, setup.sh, and
# run_autograder on several submissions, each results.json checked against
# Gradescope's schema and for what it must say.
#
# REFERENCE_LIB is the lab 3 solution built by make check-compile: what the
# grader says of it on this machine is what the autograder must report.
# Where the grader cannot grade: "not graded: <its reason>", score 0. Else (a GPU, or
# none and the kernels emulated): full marks. Needs root to check that students' code runs as another user
# (skipped otherwise); needs jq, zip, unzip (make deps-instructor).
set -u
cd "$(dirname "$0")/../.."
. tests/integrations/lib.sh
[ $# -eq 2 ] || { echo "usage: $0 BUILD REFERENCE_LIB" >&2; exit 2; }
BUILD=$1 REF_LIB=$2
need_tools "the Gradescope test" jq zip unzip
GRADER=$BUILD/smemlab-grade
[ -x "$GRADER" ] && [ -f "$REF_LIB" ] || { echo "build $GRADER and $REF_LIB first (make check-integrations)" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-gradescope-test.XXXXXX") || exit 2
chmod 755 "$TMP"
trap '[ -n "${KEEP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"' EXIT
root=$TMP/autograder

# --- the zip -----------------------------------------------------------------
if ! make -s --no-print-directory gradescope LAB=lab3 BUILD="$BUILD" >"$TMP/make.out" 2>&1; then
    not_ok "make gradescope LAB=lab3" "$TMP/make.out"
    finish_tests test-gradescope
    exit 1
fi
zip=$BUILD/gradescope/lab3/autograder.zip
if [ -f "$zip" ]; then ok "make gradescope wrote $zip ($(stat -c %s "$zip") bytes)"; else not_ok "no $zip" "$TMP/make.out"; fi
unzip -Z1 "$zip" >"$TMP/list" 2>&1
if grep -qx setup.sh "$TMP/list" && grep -qx run_autograder "$TMP/list"; then
    ok "setup.sh and run_autograder at the zip's root"
else
    not_ok "setup.sh and run_autograder at the zip's root" "$TMP/list"
fi
if grep -q '^solutions/\|/solutions/\|planted' "$TMP/list"; then
    not_ok "the zip holds no solutions or planted variants" "$TMP/list"
else
    ok "the zip holds no solutions or planted variants"
fi

# --- Gradescope's image build: unzip into source/, run setup.sh ---------------
mkdir -p "$root/source" "$root/results"
unzip -q "$zip" -d "$root/source"
if [ -x "$root/source/run_autograder" ]; then ok "run_autograder is executable once unzipped"; else not_ok "run_autograder is not executable once unzipped"; fi
cp "$root/source/run_autograder" "$root/run_autograder"
export AUTOGRADER_ROOT=$root SMEMLAB_RUN_AS=nobody
t0=$SECONDS
if (cd "$root/source" && bash ./setup.sh) >"$TMP/setup.out" 2>&1; then
    ok "setup.sh built the grader in $((SECONDS - t0))s"
else
    not_ok "setup.sh" "$TMP/setup.out"
    finish_tests test-gradescope
    exit 1
fi

# run_grader NAME: a fresh submission/ and results/, then run_autograder.
# Submission files are written to $TMP/sub-NAME first.
run_grader() {
    rm -rf "$root/submission" "$root/results"
    mkdir -p "$root/results"
    cp -r "$TMP/sub-$1" "$root/submission"
    t0=$SECONDS
    (cd "$root" && ./run_autograder) >"$TMP/$1.stdout" 2>&1
    rc=$?
    cp "$root/results/results.json" "$TMP/$1.json" 2>/dev/null || echo "no results.json" >"$TMP/$1.json"
    echo "  ($1: run_autograder exit $rc in $((SECONDS - t0))s)"
}

# The schema: score and execution_time numbers, output a string, tests[]
# each with name, score, max_score, status, output, visibility.
SCHEMA='(.score | type == "number") and (.execution_time | type == "number")
  and (.output | type == "string") and (.tests | type == "array")
  and all(.tests[]; (.name | type == "string") and (.score | type == "number")
      and (.max_score | type == "number") and (.status == "passed" or .status == "failed")
      and (.output | type == "string")
      and (.visibility | IN("hidden", "after_due_date", "after_published", "visible")))'

# --- a correct lab3.cu ---------------------------------------------------------
mkdir -p "$TMP/sub-solution/nested"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-solution/nested/lab3.cu"
run_grader solution
check "solution: results.json follows Gradescope's schema" "$TMP/solution.json" "$SCHEMA"
not_graded_reason # sets reason
if [ -n "$reason" ]; then
    check "solution: not graded, score 0, the grader's reason (\"$reason\")" "$TMP/solution.json" \
        '.score == 0 and (.output | contains($r)) and (.tests[0].output | startswith($r))' --arg r "not graded: $reason"
else
    check "solution: full marks" "$TMP/solution.json" \
        '.score > 0 and .score == ([.tests[].max_score] | add) and all(.tests[]; .status == "passed")'
fi

# --- a compile error: nvcc's message reaches the student -------------------------
mkdir -p "$TMP/sub-broken"
awk '/^__global__/ && !done { print "int broken = ;"; done = 1 } { print }' \
    solutions/lab3-padding/lab3.cu >"$TMP/sub-broken/lab3.cu"
line=$(grep -n '^int broken = ;' "$TMP/sub-broken/lab3.cu" | cut -d: -f1)
run_grader broken
check "compile error: results.json follows Gradescope's schema" "$TMP/broken.json" "$SCHEMA"
check "compile error: score 0, \"does not compile\" and nvcc's message for line $line" "$TMP/broken.json" \
    '.score == 0 and (.output | contains("does not compile")) and (.output | contains($where))
     and (.tests[0].output | contains($where)) and .tests[0].status == "failed"' \
    --arg where "lab3.cu($line): error"

# --- nothing to grade ------------------------------------------------------------------
mkdir -p "$TMP/sub-empty"
echo "my notes" >"$TMP/sub-empty/README.txt"
run_grader empty
check "no lab3.cu: results.json follows Gradescope's schema" "$TMP/empty.json" "$SCHEMA"
check "no lab3.cu: score 0 and says what to upload" "$TMP/empty.json" \
    '.score == 0 and (.output | contains("no lab3.cu in your submission"))'
mkdir -p "$TMP/sub-two/a" "$TMP/sub-two/b"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-two/a/"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-two/b/"
run_grader two
check "two lab3.cu: score 0 and names both" "$TMP/two.json" \
    '.score == 0 and (.output | contains("2 files named lab3.cu")) and (.output | contains("a/lab3.cu b/lab3.cu"))'

# --- the student's code is compiled in the jail, as the unprivileged user ------------
# A file only root can read, included: the jail refuses it (naming the path,
# never showing the file), and nvcc runs as the unprivileged user anyway.
if [ "$(id -u)" -eq 0 ]; then
    echo "#define SECRET 1" >"$TMP/root-only.h"
    chmod 600 "$TMP/root-only.h"
    mkdir -p "$TMP/sub-snoop"
    { echo "#include \"$TMP/root-only.h\""; cat solutions/lab3-padding/lab3.cu; } >"$TMP/sub-snoop/lab3.cu"
    run_grader snoop
    check "the build jail refuses an include outside the submission, and names it" "$TMP/snoop.json" \
        '.score == 0 and (.output | contains("lab3.cu includes a file outside your submission: only smemlab.h and system headers may be included")) and (.output | contains("root-only.h")) and (.output | contains("SECRET") | not)'
else
    echo "SKIP: not root, so run_autograder cannot drop to another user (Gradescope runs it as root)"
fi

finish_tests test-gradescope
