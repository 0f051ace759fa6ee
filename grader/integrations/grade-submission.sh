#!/usr/bin/env bash
# grade-submission.sh KIT LAB SOURCE OUT_DIR - build one student's labN.cu with
# the kit's flags and grade it; the Gradescope and Autolab autograders call it.
#
#   KIT      the kit's top folder, its grader built (make build/smemlab-grade)
#   LAB      lab1 ... lab10
#   SOURCE   the student's labN.cu
#   OUT_DIR  receives result.json (below), build.log, report.txt and, where the
#            grader ran, report.html (the report page: docs/instructors.md#page)
#
# result.json is what the platform scripts turn into their formats (jq):
#   {"lab", "status": "graded" | "not-compiled" | "not-graded" | "rejected",
#    "reason": "" or why not graded/compiled/usable, "seconds", "kernels": [names],
#    "provenance": what graded it and how ("trace on NAME, sm_90", "emulated on
#    the CPU: ..."; "" when nothing ran), "build_log", "report": the grader's
#    text report, "page": "report.html" where the grader wrote its page (else ""),
#    "grader": the grader's --json output, or null}
# Whose fault: a compile error the compiler names in the code is
# "not-compiled" (its first lines in build_log); a build or grading that fails
# for the machine (the student's user cannot read the kit, the toolchain is
# missing, a library will not load) is "not-graded: the grading machine ...",
# with the cause and the fix; an empty or whitespace-only file is "rejected"
# ("empty submission"), and so is a file that breaks the lab's contract (a
# fixed parameter changed: "breaks the lab's contract: ..."). No temporary path
# reaches the student.
#
# Student code runs as SMEMLAB_RUN_AS when this runs as root: the build
# (make lab-lib: the kit's flags, as smemlab-batch builds) as that user, and
# the grader with --run-as, which runs the student's host code as that user.
# That user must reach the kit: where a folder above it is private (a
# `mktemp -d` folder is 0700), a copy of the kit, root's and readable by all,
# is used instead.
# A grader without --run-as is run whole as that user, with a warning: then
# the result is only as trustworthy as the student's code lets it be. Not
# root: everything runs as the current user, with a warning.
#
# The build runs in the kit's build jail (build/smemlab-build-jail, through
# make lab-lib): it reads only the student's file, common/ and the toolchain,
# and an include of anything else, a limit reached, is the reason given.
#
# Environment: SMEMLAB_RUN_AS (user; default nobody), SMEMLAB_BUILD_TIMEOUT
# (CPU seconds each compiler process may use, default 120; the build's wall
# time is bounded at 3 times that), SMEMLAB_BUILD_MEMORY (address space of
# each compiler process, default 4G), SMEMLAB_BUILD_SANDBOX (auto, or portable
# where the container refuses Landlock), SMEMLAB_GRADE_TIMEOUT (seconds for the
# grader, default 900), NVCC_ARCH (as for make: the GPU to build for).
# Exit status: 0 result.json written (whatever the grade), 2 bad arguments,
# 3 the kit is unusable (message on stderr).
set -uo pipefail

me=grade-submission
die() { echo "$me: $*" >&2; exit "${2:-3}"; }
[ $# -eq 4 ] || die "usage: $0 KIT LAB SOURCE OUT_DIR" 2
KIT=$(cd "$1" 2>/dev/null && pwd) || die "kit folder $1 not found" 2
LAB=$2 SOURCE=$3 OUT=$4
case $LAB in lab[1-9]|lab10) ;; *) die "unknown lab '$LAB': the labs are lab1 ... lab10" 2 ;; esac
[ -f "$SOURCE" ] || die "no file $SOURCE" 2
mkdir -p "$OUT" || die "cannot create $OUT" 2
OUT=$(cd "$OUT" && pwd)

GRADER=$KIT/build/smemlab-grade
[ -x "$GRADER" ] || die "the grader is not built: run make -C $KIT build/smemlab-grade"
[ -x "$KIT/build/smemlab-build-jail" ] && [ -f "$KIT/build/obj/common/support.o" ] ||
    die "the build jail or the kit's support object is not built: run make -C $KIT lab-tools"
command -v jq >/dev/null || die "jq is missing: apt-get install jq"
BUILD_TIMEOUT=${SMEMLAB_BUILD_TIMEOUT:-120}
BUILD_WALL=$((3 * BUILD_TIMEOUT)) # the jail's wall limit: grader/base/build_limits.h
BUILD_MEMORY=${SMEMLAB_BUILD_MEMORY:-4G}
BUILD_SANDBOX=${SMEMLAB_BUILD_SANDBOX:-auto}
GRADE_TIMEOUT=${SMEMLAB_GRADE_TIMEOUT:-900}
t0=$(date +%s.%N)

command -v nvcc >/dev/null || die "nvcc not found: install the CUDA Toolkit (12.6 or newer) and put its bin/ on PATH"

# Who runs the student's code.
as_user=()
run_as=
if [ "$(id -u)" -eq 0 ]; then
    run_as=${SMEMLAB_RUN_AS:-nobody}
    id "$run_as" >/dev/null 2>&1 || die "user $run_as does not exist: create it (useradd -M $run_as) or set SMEMLAB_RUN_AS"
    [ "$(id -u "$run_as")" -ne 0 ] || die "SMEMLAB_RUN_AS=$run_as is root: name an unprivileged user"
    as_user=(runuser -u "$run_as" --)
else
    echo "$me: warning: not root, so the student's code runs as $(id -un), like the grader" >&2
fi

# A private scratch folder: the student's file alone beside pristine common/.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-$LAB.XXXXXX") || die "cannot create a scratch folder"
TRUSTED=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-result.XXXXXX") || die "cannot create a scratch folder"
KIT_COPY=
trap 'rm -rf "$WORK" "$TRUSTED" ${KIT_COPY:+"$KIT_COPY"}' EXIT
cp -r "$KIT/common" "$WORK/common" && cp "$SOURCE" "$WORK/$LAB.cu" || die "cannot copy into $WORK"
chmod 755 "$WORK"
[ -z "$run_as" ] || chown -R "$run_as" "$WORK" || die "cannot give $WORK to $run_as"

# reaches DIR: the student's user can use the kit in DIR (make, the jail, the
# support object, the grader's recorder) and the scratch folder.
reaches() {
    [ -z "$run_as" ] && return 0
    "${as_user[@]}" test -r "$1/Makefile" -a -x "$1/build/smemlab-build-jail" -a \
        -r "$1/build/obj/common/support.o" -a -x "$1/build/smemlab-record" -a -w "$WORK" 2>/dev/null
}
status=graded reason= grader_json=null page_name=
if ! reaches "$KIT"; then
    # a private folder above the kit (mktemp -d: 0700): a copy root owns, all may read
    KIT_COPY=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-kit.XXXXXX") && chmod 755 "$KIT_COPY" &&
        cp -a "$KIT/." "$KIT_COPY/" || die "cannot copy the kit into ${KIT_COPY:-a scratch folder}"
    if reaches "$KIT_COPY"; then
        KIT=$KIT_COPY GRADER=$KIT_COPY/build/smemlab-grade
    else
        status=not-graded
        reason="the grading machine: user $run_as cannot reach the kit ($KIT, or a copy in ${TMPDIR:-/tmp}): a folder above them is private to root (mode 0700?): make the folders above the kit readable (chmod 755), or set TMPDIR to a folder $run_as can read"
    fi
fi
# An empty file: nothing to build, and nothing the student may be blamed for but that.
if [ $status = graded ] && ! grep -q '[^[:space:]]' "$WORK/$LAB.cu"; then
    status=rejected
    if [ -s "$WORK/$LAB.cu" ]; then reason="empty submission: $LAB.cu holds only spaces and line ends ($(stat -c %s "$WORK/$LAB.cu") bytes)"
    else reason="empty submission: $LAB.cu is empty (0 bytes)"; fi
fi
# scrub FILE: no scratch folder in what the student reads
scrub() { sed -i -e "s|$WORK/||g" -e "s|$WORK||g" -e "s|$TRUSTED/||g" ${KIT_COPY:+-e "s|$KIT_COPY/||g"} "$1"; }
# The kit's own build of one lab library (make lab-lib, as smemlab-batch
# builds): the flags of make labN on this machine, NVCC_ARCH following the
# GPU present, in the build jail with its limits. make and nvcc run as the
# student's user. The jail stops the build itself (BUILD_TIMEOUT of CPU,
# BUILD_WALL of wall time); timeout is the backstop should make hang.
verdict=$WORK/build.verdict
: >"$OUT/build.log"
: >"$OUT/report.txt"
if [ $status = graded ]; then
    (cd "$WORK" && "${as_user[@]}" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        PATH="$PATH" HOME="$WORK" TMPDIR="$WORK" timeout -k 5 $((BUILD_WALL + 30)) \
        make -s --no-print-directory -C "$KIT" lab-lib LAB="$LAB" SRC="$WORK/$LAB.cu" \
        OUT="$WORK/$LAB.so" LAB_COMMON="$WORK/common" BUILD_TIMEOUT="$BUILD_TIMEOUT" \
        BUILD_MEMORY="$BUILD_MEMORY" BUILD_SANDBOX="$BUILD_SANDBOX" BUILD_VERDICT="$verdict") >"$OUT/build.log" 2>&1
    rc=$?
    # the student's paths, not ours; and not make's own last word
    scrub "$OUT/build.log"
    said=$(grep -v -m1 -e '^make: \*\*\* \[' -e '^[[:space:]]*$' "$OUT/build.log")
    sed -i '/^make: \*\*\*/d' "$OUT/build.log"
    jail_said=$(head -n1 "$verdict" 2>/dev/null)
    if [ $rc -ne 0 ] && [ -n "$jail_said" ]; then
        # "error: ...", "refused: ..." and "limit: ..." are the student's build's; "setup: ..." the machine's
        case $jail_said in
            setup:*) status=not-graded reason="the grading machine could not build it: ${jail_said#setup: }" ;;
            *) status=not-compiled reason=${jail_said#*: } ;;
        esac
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        status=not-compiled reason="the build ran past ${BUILD_WALL} s"
    elif [ $rc -ne 0 ]; then # make failed before or around the jail: never the code's
        status=not-graded reason="the grading machine could not run the build (make lab-lib, status $rc: ${said:-it said nothing}): check that make -C the kit lab-tools works and that make and nvcc are on PATH"
    fi
fi
if [ $status = graded ]; then
    # The grader's JSON goes where the student's user cannot write (it owns
    # WORK, so it could replace a file there), except when the whole
    # grader has to run as that user.
    json=$TRUSTED/grade.json page=$TRUSTED/report.html
    # What this grader offers, read whole once: `--help | grep -q` under pipefail fails
    # whenever grep stops reading before the help's last write (SIGPIPE), and a grader
    # with --run-as then ran whole as the student's user, its JSON where the student
    # writes. has OPTION: the help names it.
    help=$("$GRADER" --help 2>&1)
    has() { grep -q -- "$1" <<<"$help"; }
    if [ -n "$run_as" ] && has '--run-as'; then
        cmd=("$GRADER" --verbose --run-as "$run_as" --lib "$WORK/$LAB.so" --source "$WORK/$LAB.cu" --json "$json" "$LAB")
    elif [ -n "$run_as" ]; then
        echo "$me: warning: this grader has no --run-as: running all of it as $run_as" >&2
        json=$WORK/grade.json page=$WORK/report.html
        cmd=("${as_user[@]}" "$GRADER" --verbose --lib "$WORK/$LAB.so" --source "$WORK/$LAB.cu" --json "$json" "$LAB")
    else
        cmd=("$GRADER" --verbose --lib "$WORK/$LAB.so" --source "$WORK/$LAB.cu" --json "$json" "$LAB")
    fi
    # the report page too, where this grader writes one (--html)
    has '--html' && cmd+=(--html "$page")
    # a handed-in file: the report's last line speaks of the submission, not of the kit's make
    has '--handin' && cmd+=(--handin)
    (cd "$KIT" && NO_COLOR=1 timeout -k 10 "$GRADE_TIMEOUT" "${cmd[@]}") </dev/null >"$OUT/report.txt" 2>&1
    rc=$?
    scrub "$OUT/report.txt"
    # the page is this machine's file: the student makes their own with the kit
    sed -i "s|^Page: .*|Page: make grade in your kit writes this report as a page, with your file and each memory line's cost (build/report/$LAB.html)|" "$OUT/report.txt"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        status=not-graded reason="grading took more than ${GRADE_TIMEOUT}s and was stopped"
    elif ! jq -e '.labs[0].id' "$json" >/dev/null 2>&1; then
        status=not-graded
        reason="the grading machine could not run the grader (exit status $rc, no results; it said: $(grep -v '^[[:space:]]*$' "$OUT/report.txt" | tail -n1)): check that make -C the kit lab-tools works"
    else
        scrub "$json"
        grader_json=$json
        if [ -f "$page" ] && [ ! -L "$page" ]; then # the page, as the report: no scratch path
            cp "$page" "$OUT/report.html" && scrub "$OUT/report.html" && page_name=report.html
        fi
        ng=$(jq -r '.labs[0].not_graded // empty' "$grader_json")
        if [ -n "$ng" ] && [ "$(jq -r '.labs[0].not_graded_cause // empty' "$grader_json")" = contract ]; then
            status=rejected reason="breaks the lab's contract: $ng" # the student's, as the batch says
        elif [ -n "$ng" ]; then
            status=not-graded reason=$ng
        fi
    fi
fi

# The lab's kernels, for formats that list every problem even at 0 points.
kernels=$("$GRADER" --list | awk -v lab="$LAB" '
    /^lab[0-9]/ { on = ($1 == lab); next }
    on && NF { print $1 }' | jq -R . | jq -s .)
# provenance: the grader's device line, short, as smemlab-batch words it
# (grader/batch/util.c provenance_of): "trace on NAME, sm_90", "emulated on the
# CPU: no GPU found; speed not measured", "NAME, sm_90, counters not measured".
provenance() {
    [ "$grader_json" != null ] || return 0
    jq -r '.labs[0].device // "" |
        if startswith("emulated on the CPU") then
            (if test("speed not measured") then sub("speed not measured.*"; "speed not measured") else sub(" \\(.*"; "") end)
        elif test(" \\(sm_[0-9]+") then
            (capture("^(?<name>.*?) \\(sm_(?<sm>[0-9]+)") as $d
             | if test("; measured by ") then (capture("; measured by (?<b>[^ (:;]+)").b + " on " + $d.name + ", sm_" + $d.sm)
               else $d.name + ", sm_" + $d.sm + ", counters not measured" end)
        else sub(";.*"; "") end' "$grader_json"
}
t1=$(date +%s.%N)
if [ "$grader_json" = null ]; then echo null >"$TRUSTED/grader.null"; grader_json=$TRUSTED/grader.null; fi
jq -n --arg lab "$LAB" --arg status "$status" --arg reason "$reason" \
    --argjson seconds "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
    --argjson kernels "$kernels" --arg provenance "$(provenance)" --arg page "$page_name" \
    --rawfile build_log "$OUT/build.log" --rawfile report "$OUT/report.txt" \
    --slurpfile grader "$grader_json" \
    '{lab: $lab, status: $status, reason: $reason, seconds: $seconds, kernels: $kernels,
      provenance: $provenance, build_log: $build_log, report: $report, page: $page,
      grader: $grader[0]}' >"$OUT/result.json.tmp" &&
    mv "$OUT/result.json.tmp" "$OUT/result.json" || die "cannot write $OUT/result.json"
