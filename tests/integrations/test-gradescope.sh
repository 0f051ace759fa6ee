#!/usr/bin/env bash
# test-gradescope.sh BUILD REFERENCE_LIB - make gradescope LAB=lab3, then
# Gradescope's part run for real in a temporary folder laid out like theirs
# (AUTOGRADER_ROOT), made by mktemp -d and left private (0700) as the
# documented try-out leaves it: the zip unpacked into source/, setup.sh, and
# run_autograder on several submissions (a solution, a compile error, renamed
# and empty files, none, two, an include outside, a toolchain that will not
# load), each results.json checked against Gradescope's schema and for what it
# must say, what graded it included. Then, as root where /autograder is free,
# the same in Gradescope's own /autograder layout (AUTOGRADER_ROOT unset).
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

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-gradescope-test.XXXXXX") || exit 2 # 0700, as the try-out's
own_root= # /autograder, when this test made it
trap '[ -n "${KEEP:-}" ] && echo "kept $TMP" || rm -rf "$TMP"; [ -z "$own_root" ] || rm -rf /autograder' EXIT
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

# The schema: score and execution_time numbers, output a string, tests[]
# each with name, score, max_score, output, visibility, and status where it has a
# verdict (the specification's status is optional: a check not measured here, 0 of 0,
# and one waiting for another have none; results.jq).
SCHEMA='(.score | type == "number") and (.execution_time | type == "number")
  and (.output | type == "string") and (.tests | type == "array")
  and all(.tests[]; (.name | type == "string") and (.score | type == "number")
      and (.max_score | type == "number") and ((has("status") | not) or .status == "passed" or .status == "failed")
      and (.output | type == "string")
      and (.visibility | IN("hidden", "after_due_date", "after_published", "visible")))'

not_graded_reason # sets reason: what the grader says of the reference here
# what graded it, and how: the grader's device line, short
if gpu_present; then prov_re='^lab3: [0-9]+/[0-9]+ points; graded by: (trace|counters) on .*, sm_[0-9]+\n'
else prov_re='^lab3: [0-9]+/[0-9]+ points; graded by: emulated on the CPU: no GPU found; speed not measured\n'; fi

# make check (the fast tier): Gradescope's layout under AUTOGRADER_ROOT, its kit
# seeded with this run's grader; make check-full: /autograder and the try-out,
# each building the grader from nothing as Gradescope's image build does.
if in_tier fast; then
# --- Gradescope's image build: unzip into source/, run setup.sh ---------------
mkdir -p "$root/source" "$root/results"
unzip -q "$zip" -d "$root/source"
if [ -x "$root/source/run_autograder" ]; then ok "run_autograder is executable once unzipped"; else not_ok "run_autograder is not executable once unzipped"; fi
cp "$root/source/run_autograder" "$root/run_autograder"
export AUTOGRADER_ROOT=$root SMEMLAB_RUN_AS=nobody
if seed_kit "$root/source/kit"; then ok "the kit's build/ seeded with this run's grader, jail and support.o: make lab-tools has nothing to do"
else not_ok "the seeded kit is not up to date for make lab-tools (make -q): setup.sh would build the grader again"; fi
before=$(stat -c %Y.%y "$root/source/kit/build/smemlab-grade" 2>/dev/null)
t0=$SECONDS
if (cd "$root/source" && bash ./setup.sh) >"$TMP/setup.out" 2>&1; then
    if [ "$(stat -c %Y.%y "$root/source/kit/build/smemlab-grade")" = "$before" ]; then
        ok "setup.sh ran its make lab-tools in $((SECONDS - t0))s and reused the seeded grader"
    else
        not_ok "setup.sh built the grader again in a seeded kit" "$TMP/setup.out"
    fi
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

# --- a correct lab3.cu ---------------------------------------------------------
mkdir -p "$TMP/sub-solution/nested"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-solution/nested/lab3.cu"
run_grader solution
check "solution: results.json follows Gradescope's schema" "$TMP/solution.json" "$SCHEMA"
if [ -n "$reason" ]; then
    check "solution: not graded, score 0, the grader's reason (\"$reason\")" "$TMP/solution.json" \
        '.score == 0 and (.output | contains($r)) and (.tests[0].output | startswith($r))' --arg r "not graded: $reason"
else
    check "solution, as root from a private (0700) folder: full marks" "$TMP/solution.json" \
        '.score > 0 and .score == ([.tests[].max_score] | add) and all(.tests[]; .status == "passed")'
fi
[ -n "$reason" ] || check "solution: the output says what graded it (\"graded by: ...\")" "$TMP/solution.json" '.output | test($re)' --arg re "$prov_re"
if [ "$(id -u)" -eq 0 ] && ls -ld "$TMP" | grep -q '^drwx------'; then ok "(all of it under a private folder, mode 700, as root)"; fi

# --- renamed, empty ------------------------------------------------------------------
mkdir -p "$TMP/sub-renamed"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-renamed/Lab3 (1).cu"
run_grader renamed
[ -n "$reason" ] || check "a renamed file alone (Lab3 (1).cu): graded, and the output names it" "$TMP/renamed.json" \
    '.score > 0 and (.output | startswith("Graded file: Lab3 (1).cu (taken as lab3.cu)\n"))'
mkdir -p "$TMP/sub-blank"
printf '\n   \n' >"$TMP/sub-blank/lab3.cu"
run_grader blank
check "a whitespace-only lab3.cu: score 0, \"empty submission\", nothing about the grading machine" "$TMP/blank.json" \
    '.score == 0 and (.output | startswith("lab3: empty submission: lab3.cu holds only spaces and line ends (5 bytes)"))
     and (.tests[0].name == "lab3: rejected") and (.output | contains("graded by") | not)'

# --- the grading machine's failure is never the student's --------------------------------
# (its folder readable by the student's user, who runs nvcc)
badnv=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-badnv.XXXXXX") && chmod 755 "$badnv"
printf '#!/bin/sh\necho "nvcc: error while loading shared libraries: libnvvm.so.4: cannot open shared object file" >&2\nexit 127\n' >"$badnv/nvcc"
chmod 755 "$badnv/nvcc"
mkdir -p "$TMP/sub-badnv"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-badnv/lab3.cu"
PATH=$badnv:$PATH run_grader badnv
rm -rf "$badnv"
check "a library of the toolchain that will not load: not graded, the grading machine's, never \"does not compile\"" "$TMP/badnv.json" \
    '.score == 0 and (.output | startswith("lab3: not graded: the grading machine could not build it: the compiler stopped (status 127)"))
     and (.output | contains("does not compile") | not) and (.output | contains("error while loading shared libraries"))'
grep -qE 'smemlab-(lab3|result|kit)\.[A-Za-z0-9]{6}' "$TMP"/*.json && not_ok "a temporary path reached a student's results.json" || ok "no temporary path in any results.json"

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
    '.score == 0 and (.output | contains("2 files could be lab3.cu")) and (.output | contains("a/lab3.cu b/lab3.cu"))'
mkdir -p "$TMP/sub-copy"
cp solutions/lab3-padding/lab3.cu "$TMP/sub-copy/lab3.cu"
cp labs/lab3-padding/lab3.cu "$TMP/sub-copy/lab3 (1).cu"
run_grader copy
check "lab3.cu beside its browser copy lab3 (1).cu: score 0, both named (neither silently)" "$TMP/copy.json" \
    '.score == 0 and (.output | contains("2 files could be lab3.cu in your submission (lab3 (1).cu lab3.cu)"))'

# --- labs 7 to 9 through the same autograder: their zips name them, their solutions
# graded in full but speed, which a GPU measures (emulated: "not measured", no points) ---
for lab in lab7 lab8 lab9 lab10; do
    if make -s --no-print-directory gradescope LAB=$lab BUILD="$BUILD" >"$TMP/make-$lab.out" 2>&1 &&
       [ "$(unzip -p "$BUILD/gradescope/$lab/autograder.zip" smemlab-lab)" = "$lab" ]; then
        ok "make gradescope LAB=$lab: a zip for $lab"
    else
        not_ok "make gradescope LAB=$lab: a zip for $lab" "$TMP/make-$lab.out"
    fi
    echo "$lab" >"$root/source/smemlab-lab" # the image built above, set to grade this lab
    mkdir -p "$TMP/sub-$lab"
    cp solutions/$lab-*/$lab.cu "$TMP/sub-$lab/$lab.cu"
    run_grader $lab
    check "$lab solution: results.json follows Gradescope's schema" "$TMP/$lab.json" "$SCHEMA"
    if [ -n "$reason" ]; then
        check "$lab solution: not graded, score 0 ($reason)" "$TMP/$lab.json" '.score == 0'
    elif gpu_present; then
        check "$lab solution: full marks, speed included" "$TMP/$lab.json" \
            '.score > 0 and .score == ([.tests[].max_score] | add) and all(.tests[]; .status == "passed")'
    else
        check "$lab solution: every test passed but speed: not measured here, 0 of 0 and no status (no verdict)" "$TMP/$lab.json" \
            '.score > 0 and all(.tests[]; .status == "passed" or ((.name | test("speed \\(not measured here\\)$")) and .max_score == 0
                                                                  and (has("status") | not) and (.output | test("not measured"))))
             and any(.tests[]; .name | test("speed"))'
    fi
done
echo lab3 >"$root/source/smemlab-lab"

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

fi # the fast tier

if in_tier full; then
# --- Gradescope's own layout: /autograder, AUTOGRADER_ROOT unset ------------------------------
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: /autograder needs root"
elif [ -e /autograder ]; then
    echo "SKIP: /autograder exists on this machine: not touched"
else
    own_root=1
    mkdir -p /autograder/source /autograder/submission
    unzip -q "$zip" -d /autograder/source
    cp /autograder/source/run_autograder /autograder/run_autograder
    cp solutions/lab3-padding/lab3.cu /autograder/submission/lab3.cu
    t0=$SECONDS
    if (unset AUTOGRADER_ROOT; cd /autograder/source && bash ./setup.sh && cd /autograder && ./run_autograder) >"$TMP/own.out" 2>&1 &&
        cp /autograder/results/results.json "$TMP/own.json"; then
        check "/autograder as Gradescope lays it out (setup.sh, run_autograder in $((SECONDS - t0))s): results.json follows the schema" "$TMP/own.json" "$SCHEMA"
        if [ -n "$reason" ]; then check "/autograder: not graded: $reason" "$TMP/own.json" '.score == 0'
        else check "/autograder: the solution scores full marks and says what graded it" "$TMP/own.json" \
            '.score > 0 and .score == ([.tests[].max_score] | add) and (.output | test($re))' --arg re "$prov_re"; fi
    else
        not_ok "/autograder: setup.sh or run_autograder failed" "$TMP/own.out"
    fi
fi

# --- the documented try-out, as written (docs/instructors.md#gradescope) ------------------------
# A reader's shell: no make above it, their TMPDIR (mktemp -d gives a 0700 folder
# in it); the solution in place of the skeleton, the one change.
if [ "$(id -u)" -ne 0 ] || [ "$BUILD" != build ]; then
    echo "SKIP: the documented try-out runs as root, with the kit's build/ (BUILD=build)"
else
    block=$(doc_block "To try the zip on your machine" | sed 's|cp labs/lab3-padding/lab3.cu|cp solutions/lab3-padding/lab3.cu|')
    t0=$SECONDS
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u AUTOGRADER_ROOT -u SMEMLAB_RUN_AS bash -c "$block"'
        echo "TRYOUT_ROOT=$root"' >"$TMP/tryout.out" 2>&1
    tryout=$(sed -n 's/^TRYOUT_ROOT=//p' "$TMP/tryout.out")
    if [ -n "$tryout" ] && [ -f "$tryout/results/results.json" ]; then
        cp "$tryout/results/results.json" "$TMP/tryout.json"
        if [ -n "$reason" ]; then check "the documented try-out: not graded: $reason" "$TMP/tryout.json" '.score == 0'
        else check "the documented try-out, as root from its mktemp -d folder (mode $(stat -c %a "$tryout")), in $((SECONDS - t0))s: the solution scores 15/15 and says what graded it" "$TMP/tryout.json" \
            '.score == 15 and (.output | test($re))' --arg re "$prov_re"; fi
    else
        not_ok "the documented try-out wrote no results.json" "$TMP/tryout.out"
    fi
    case $tryout in "${TMPDIR:-/tmp}"/tmp.*) rm -rf "$tryout" ;; esac
fi

fi # the full tier

finish_tests test-gradescope
