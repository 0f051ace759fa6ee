#!/usr/bin/env bash
# check-labs.sh BUILD GRADER - labs 7 and 8 against Nsight Compute (a GPU only;
# make check-truth-gpu runs it): every solution and planted variant is graded by
# the trace and by the emulator, then each kernel a grade measured is launched
# again at the size it measured (the trace's and the emulator's differ) by
# truth-run under ncu, and compare-labs.py holds each grade's global loads and
# stores, shared requests a block and shuffles to ncu's (the instrument's
# differences: tests/truth/lab-differences.tsv). What ncu measured is recorded as
# build/truth/recorded/tests/truth/CARD-labs.tsv (CARD: card-name.sh's, h100, h200).
set -u
build=${1:?usage: check-labs.sh BUILD GRADER}
grader=${2:?usage: check-labs.sh BUILD GRADER}
here=$(dirname "$0")
out=$build/truth/labs
backends="trace emulator"
export LC_ALL=C # one order for the shell and compare-labs.py
rm -rf "$out" && mkdir -p "$out" || exit 1
items=()
for lab in lab7 lab8; do
    items+=("$lab-solution $lab $build/solutions/$lab.so")
    for p in "$build"/planted/$lab-*.so; do
        items+=("$(basename "$p" .so) $lab $p")
    done
done
# the grades, several at once as check-gpu makes them (they take turns on the GPU)
for b in $backends; do
    mkdir -p "$out/$b"
    printf '%s\n' "${items[@]}" | sort | xargs -P 8 -L 1 bash -c \
        '"$1" "$5" --lib "$6" --measure "$3" --json "$2/$3/$4.json" > "$2/$3/$4.txt" 2>&1
         rc=$?; [ $rc -le 1 ] || [ $rc = 4 ] || { echo "check-labs: $3 on $4: the grade exited $rc"; exit 1; }' \
        _ "$grader" "$out" "$b" || exit 1
done
run=()
for b in $backends; do
    while read -r name lab lib; do
        [ -s "$out/$b/$name.json" ] || {
            echo "check-labs: $name was not graded by $b"; tail -n 3 "$out/$b/$name.txt"; exit 1; }
        python3 "$here/compare-labs.py" --calls "$out/$b/$name.json" > "$out/$b/$name.tsv" || exit 1
        # a library none of whose kernels a grade measured (its launchers refused) is not run
        grep -q '^call' "$out/$b/$name.tsv" && run+=("$lib" "$out/$b/$name.tsv")
    done < <(printf '%s\n' "${items[@]}" | sort)
done
t0=$(date +%s)
ncu --csv --metrics "$(python3 "$here/compare-labs.py" --metrics)" "$build/tests/truth-run" \
    "${run[@]}" > "$out/ncu.csv" 2> "$out/ncu.err" || {
    echo "check-labs: ncu failed:"; tail -n 5 "$out/ncu.err"; exit 1; }
echo "check-labs: Nsight Compute profiled labs 7 and 8 (${#items[@]} libraries, 2 sizes) in $(( $(date +%s) - t0 )) s"
args=()
for b in $backends; do args+=("$b=$out/$b"); done
card=$(bash "$here/card-name.sh") || exit 1
rec=$build/truth/recorded/tests/truth
mkdir -p "$rec" || exit 1
python3 "$here/compare-labs.py" "$out/ncu.csv" "${args[@]}" --differences "$here/lab-differences.tsv" \
    --card "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)" \
    --write-fixture "$rec/$card-labs.tsv"
