#!/usr/bin/env bash
# check-labs.sh BUILD GRADER - every lab graded by emulation, as make check
# runs it on a machine with no GPU (docs/emulator.md#proof): every solution
# scores full marks but speed (not measured), every skeleton loses points,
# and every row of tests/planted/manifest.tsv holds with the message a
# student would see, but the rows that need a GPU (speed). The libraries are
# those check-compile built (their sm_75 code carries compute_75 PTX).
# CHECK_ONLY="NAME ...": only these are graded and judged (lab1-solution,
# lab1-skeleton, a planted variant's name): make check-mutants runs the few a
# mutant concerns. With SMEMLAB_TWIN=1 in the environment the grader judges as
# a GPU backend does and runs the emulated twin beside it (problems/problem.c),
# into BUILD/emulated-twin: the twin's test with no GPU.
set -u
build=${1:?usage: check-labs.sh BUILD GRADER}
grader=${2:?usage: check-labs.sh BUILD GRADER}
here=$(dirname "$0")
expect=$build/tests/expect
lib=$build/compile-check
out=$build/emulated${SMEMLAB_TWIN:+-twin}
jobs=${CHECK_JOBS:-$(nproc)}
rm -rf "$out" && mkdir -p "$out"
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
only=" $(printf '%s ' ${CHECK_ONLY:-})" # names apart by any white space (a list from ls has newlines)
wanted() { [ -z "${CHECK_ONLY:-}" ] || [[ $only == *" $1 "* ]]; }
EMULATED=1
planted=$here/../planted # the student kit has no solutions and no planted variants
. "$here/../judge.sh"

labs=$("$grader" --list | awk '/^lab[0-9]/ {print $1}')
# The variants that never end (a kernel or a launcher: their row says "timed out" or "did
# not return within") are graded under a 2 s limit, as check-gpu.sh grades them under 3 s:
# what they test (the hang ended and named, the other kernels still graded) is the same at
# any limit, and the default 10 s (the emulator's budget follows it) cost 17 CPU-s of
# make check. Every other grade has the default.
short=2
hanging=" $([ -f "$planted/manifest.tsv" ] && awk -F'\t' '$5 ~ /timed out|did not return within/ {
    sub(/\.cu$/, "", $1); print $1 }' "$planted/manifest.tsv" | sort -u | tr '\n' ' ') "
limit() { case $hanging in *" $1 "*) echo $short ;; *) echo 10 ;; esac; }
t0=$(date +%s)
{
    for lab in $labs; do
        [ -d solutions ] && wanted "$lab-solution" && echo "$lab-solution $lab 10 $(ls "$lib"/solutions/"$lab"-*/"$lab".so)"
        wanted "$lab-skeleton" && echo "$lab-skeleton $lab 10 $(ls "$lib"/labs/"$lab"-*/"$lab".so) $(ls labs/"$lab"-*/"$lab".cu)"
    done
    [ -d "$planted" ] && for so in "$lib"/planted/*.so; do
        name=$(basename "$so" .so)
        wanted "$name" && echo "$name ${name%%-*} $(limit "$name") $so"
    done
} | xargs -P "$jobs" -L 1 sh -c \
    '"$0" --measure emulator --timeout "$4" --lib "$5" ${6:+--source "$6"} --json "$1/$2.json" "$3" > "$1/$2.txt" 2>&1; echo $? > "$1/$2.rc"' \
    "$grader" "$out" || true # each line: NAME LAB LIMIT LIBRARY [SOURCE], after the grader and the folder
for name in ${CHECK_ONLY:-}; do # a name that is nothing here is a mistake, not a pass
    [ -f "$out/$name.rc" ] || { echo "CHECK_ONLY: '$name' is no solution, skeleton or planted variant here" >&2; exit 2; }
done
echo "time: $(ls "$out"/*.rc | wc -l) grades by emulation in $(( $(date +%s) - t0 )) s ($jobs at a time)"

[ -d solutions ] || echo "note: there is no solutions/ here (the student kit): the skeletons alone"
for lab in $labs; do
    if [ -d solutions ] && wanted "$lab-solution"; then
        judge_solution "$out/$lab-solution.json" "$(cat "$out/$lab-solution.rc")" "$lab solution (emulated${SMEMLAB_TWIN:+, the twin})"
        grep -E '^lab[0-9]+:' "$out/$lab-solution.txt"
    fi
    wanted "$lab-skeleton" || continue
    judge_skeleton "$out/$lab-skeleton.json" "$(cat "$out/$lab-skeleton.rc")" "$lab skeleton (emulated)" \
        "$(grep '^Score' "$out/$lab-skeleton.txt")"
    # a fresh skeleton is one screen: a line a kernel, each naming its TODO, and Next: last
    lines=$(wc -l <"$out/$lab-skeleton.txt")
    todos=$(grep -c "TODO  not started: .*fill the TODO at $lab.cu:[0-9]" "$out/$lab-skeleton.txt")
    kernels=$("$grader" --list | awk -v lab="$lab" '/^lab/ { on = $1 == lab; next } on && !/optional/ { n++ } END { print n }')
    if [ "$lines" -le 20 ] && [ "$todos" = "$kernels" ] && tail -n1 "$out/$lab-skeleton.txt" | grep -q '^Next: '; then
        ok "$lab skeleton report: $lines lines, each of its $kernels kernels one line naming its TODO, Next: last"
    else
        bad "$lab skeleton report: $lines lines (at most 20), $todos of $kernels kernels name their TODO, last line: $(tail -n1 "$out/$lab-skeleton.txt")"
    fi
done
while IFS=$'\t' read -r file lab kernel check text; do
    [ "$file" = file ] && continue
    wanted "${file%.cu}" || continue
    if [ "$check" = speed ]; then # timing is the GPU's alone
        skipped=$((skipped + 1))
        continue
    fi
    judge_row "$out/${file%.cu}.json" "$file" "$kernel" "$check" "$text" " (emulated${SMEMLAB_TWIN:+, the twin})"
done < <([ -f "$planted/manifest.tsv" ] && cat "$planted/manifest.tsv")
# The hanging variants were ended at their short limit, in its words: a launcher after
# $short s, a kernel at the emulator's budget for $short s (2^28 warp instructions at the
# default 10 s, in proportion: measure/emulator/emu_device.h).
budget=$(( (1 << 28) * short / 10 ))
for name in $hanging; do
    wanted "$name" && [ -f "$out/$name.txt" ] || continue
    if grep -q -e "did not return within $short s" -e "ran past $budget warp instructions" "$out/$name.txt"; then
        ok "$name (emulated${SMEMLAB_TWIN:+, the twin}): ended at its --timeout $short, in its words"
    else
        bad "$name (emulated${SMEMLAB_TWIN:+, the twin}): not ended at --timeout $short (\"within $short s\" or \"past $budget warp instructions\"): $(grep -m1 FAIL "$out/$name.txt")"
    fi
done
[ -d "$planted" ] && judge_every_failure "$out" "$planted" "emulated${SMEMLAB_TWIN:+ (the twin)}"
# Emulated, speed is never timed: whatever correct says it is not measured, never a
# failure that counts against a kernel (problems/problem.c speed_due); only where nothing
# of the kernel ran at all (its launcher launched nothing) does it wait, "not run".
timed=$(python3 - "$out" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for lab in json.load(open(path)).get("labs", []):
        for c in lab.get("checks", []):
            if c["check"] == "speed" and c["status"] not in ("not-measured", "skipped", "not-graded") \
                    and not c["message"].startswith("not run: "):
                print(f"{path.split('/')[-1]}: {c['kernel']} speed {c['status']}: {c['message']}")
PY
)
[ -z "$timed" ] && ok "emulated: every speed check not measured, right kernel or wrong" \
    || bad "emulated: a speed check that is not 'not measured': $timed"
echo "emulated${SMEMLAB_TWIN:+ (the twin)}: $passed passed, $failed failed, $skipped rows skipped (they need a GPU: speed)"
[ "$failed" = 0 ]
