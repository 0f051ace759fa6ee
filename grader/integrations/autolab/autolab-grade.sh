#!/usr/bin/env bash
# autolab-grade.sh KIT LAB HANDIN - run by autograde-Makefile in Autolab's
# grading container. Builds the grader, grades the handin, prints the report
# for the student and, as the last line whatever happens, the autoresult.
# Always exits 0: Autolab reads the score from the last line, and make's own
# error message would otherwise come after it.
set -uo pipefail
KIT=$1 LAB=$2 HANDIN=$3
export PATH=$PATH:/usr/local/cuda/bin
WORK=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-autolab.XXXXXX") || { echo '{"scores": {}}'; exit 0; }
trap 'rm -rf "$WORK"' EXIT

# A last line with every kernel at 0, for when grading itself fails.
zero_line() {
    "$KIT/build/smemlab-grade" --list 2>/dev/null | awk -v lab="$LAB" '
        /^lab[0-9]/ { on = ($1 == lab); next } on && NF { print $1 }' |
        jq -R . | jq -s -c '{scores: (map({key: ., value: 0}) | from_entries), scoreboard: ([0] + map(0))}' 2>/dev/null ||
        echo '{"scores": {}}'
}

# The grader make autolab shipped (prebuilt.sh): a handin costs its own build and the
# grading; where it cannot grade here, it is built here (a minute or more).
. "$KIT/grader/integrations/prebuilt.sh"
if ! prebuilt_fits "$KIT"; then
    [ -f "$KIT/build/PREBUILT" ] && echo "(the autograder builds its grader here: the prebuilt one cannot grade on this machine: $why)"
    rm -rf "$KIT/build"
fi
if ! make -s -C "$KIT" -j"$(nproc)" lab-tools >"$WORK/make.log" 2>&1; then
    echo "The grader could not be built on this machine (not your code's fault):"
    tail -n 20 "$WORK/make.log"
    zero_line
    exit 0
fi
if [ ! -f "$HANDIN" ]; then
    echo "No handin file $HANDIN: submit your $LAB.cu."
    zero_line
    exit 0
fi
if ! bash "$KIT/grader/integrations/grade-submission.sh" "$KIT" "$LAB" "$HANDIN" "$WORK/out"; then
    echo "The autograder failed (not your code's fault): see above."
    zero_line
    exit 0
fi
r=$WORK/out/result.json
case $(jq -r .status "$r") in
    graded) jq -r '"Graded by: " + .provenance | select(. != "Graded by: ")' "$r"; cat "$WORK/out/report.txt" ;;
    not-compiled) jq -r .reason "$r"; echo; cat "$WORK/out/build.log" ;;
    rejected) jq -r .reason "$r" ;;
    *) echo "not graded: $(jq -r .reason "$r")"; cat "$WORK/out/report.txt" ;;
esac
echo
jq -c -f "$KIT/grader/integrations/autolab/autolab.jq" "$r" 2>/dev/null || zero_line
