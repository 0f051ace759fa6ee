#!/usr/bin/env bash
# student-kit.sh OUTDIR - the kit to hand to students, as OUTDIR/smemlab-student/
# and OUTDIR/smemlab-student.tar.gz (run by `make student-kit`).
#
# It holds every file git tracks except the reference solutions (solutions/) and
# the SASS listings made of them (tests/sass/listings/labN-*, milestones.*),
# the planted wrong variants (tests/planted/), the GPU self-test that grades
# them (tests/gpu/), the benchmark of the solutions (grader/bench/) and the
# instructors' page, which is replaced by a short page that keeps its anchors
# (other pages link to them). The course is rendered inside the kit, from the
# kit's own pages, into course/: a student opens course/index.html without
# installing pandoc. make check passes inside the kit (tests/kit/).
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUTDIR=$1
NAME=smemlab-student
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

if [ ! -d solutions ]; then
    echo "make student-kit: there is no solutions/ here: this already is a student kit." >&2
    exit 2
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "make student-kit: needs the git checkout of the kit (it packs the files git tracks)." >&2
    exit 3
fi

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
KIT=$OUTDIR/$NAME
rm -rf "$KIT" "$KIT.tar.gz"
mkdir -p "$KIT"

# --- the files: tracked ones, as they are in the working tree ---------------------
n=0
while IFS= read -r -d '' f; do
    case $f in
    solutions/* | tests/planted/* | tests/gpu/* | tests/mutants/* | grader/bench/* | docs/instructors.md | CONTRIBUTING.md) continue ;;
    tests/sass/listings/emulator.* | tests/sass/listings/sass.* | tests/sass/listings/NVDISASM_VERSION.txt) ;;
    tests/sass/listings/*) continue ;; # the solutions' machine code: as good as their source
    esac
    [ -f "$f" ] || continue # deleted in the working tree
    mkdir -p "$KIT/$(dirname "$f")"
    cp -p "$f" "$KIT/$f"
    n=$((n + 1))
done < <(git ls-files -z)
# the instructor's course file (COURSE_FILE, default course.conf), tracked or not: the
# kit's grader, pages and tests follow it (docs/instructors.md#course)
course=${COURSE_FILE-course.conf}
if [ -n "$course" ] && [ -f "$course" ]; then
    cp -p "$course" "$KIT/course.conf"
    echo "student-kit: the course file $course, as course.conf"
fi

# --- the instructors' page: a short one with the same anchors ----------------------
# Every #anchor another page links to must still exist (make check-docs checks links).
anchors=$(grep -ho 'instructors\.md#[A-Za-z0-9_-]*' docs/*.md README.md 2>/dev/null |
    sed 's/.*#//' | sort -u)
{
    echo '---'
    echo 'title: For instructors'
    echo 'subtitle: This is the student kit'
    echo '---'
    echo
    echo 'This copy of smemlab is the **student kit**: it has the labs, the grader,'
    echo 'the course and the tests of the kit itself, but not the reference solutions,'
    echo 'the planted wrong variants that test the grader, or the instructors'"'"' guide.'
    echo 'Those are in the full kit, from which your instructor made this one with'
    echo '`make student-kit`.'
    echo
    echo 'Everything a student needs is here: [Getting started](getting-started.md),'
    echo 'the labs, and `build/smemlab-grade --help` for every option of the grader.'
    for a in $anchors; do
        echo
        echo "## In the full kit: \`$a\` {#$a}"
        echo
        echo 'This part of the instructors'"'"' guide is in the full kit only.'
    done
} >"$KIT/docs/instructors.md"

# --- the course, rendered from the kit's own pages --------------------------------
echo "student-kit: rendering the course inside the kit"
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -C "$KIT" docs-html >"$OUTDIR/render.log" 2>&1 || {
    cat "$OUTDIR/render.log" >&2
    echo "make student-kit: rendering the course failed (messages above)" >&2
    exit 1
}
mkdir -p "$KIT/course"
cp -p "$KIT"/build/docs/*.html "$KIT"/build/docs/style.css "$KIT/course/"
mkdir -p "$KIT/course/figures"
cp -p "$KIT"/build/docs/figures/*.svg "$KIT/course/figures/"
rm -rf "$KIT/build"

# --- nothing of the instructors' side may have slipped in ----------------------------
for p in solutions tests/planted tests/gpu grader/bench; do
    if [ -e "$KIT/$p" ]; then
        echo "make student-kit: $p is in the kit" >&2
        exit 1
    fi
done

tar -C "$OUTDIR" -czf "$KIT.tar.gz" "$NAME"
echo "student-kit: $n files and the rendered course (course/index.html)"
echo "  folder:  $KIT"
echo "  tarball: $KIT.tar.gz"
