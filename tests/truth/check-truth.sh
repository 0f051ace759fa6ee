#!/usr/bin/env bash
# check-truth.sh BUILD GRADER [gpu] - the grader against the hardware on the
# truth corpus (tests/truth/gen-corpus.py; docs/instructors.md#truth).
#   gpu:     every part graded by each backend (counters, trace, emulator),
#            and every kernel profiled by Nsight Compute (ncu) in the same run;
#            what the card measured is written to build/truth/recorded/tests/truth/
#            as CARD-ncu.tsv, CARD-idioms.tsv and CARD-global.tsv (CARD: the
#            device's short name, card-name.sh: h100, h200), the files make check
#            holds the emulator to once copied into tests/truth/.
#   no gpu:  every part graded by the emulator, against every card's recorded
#            figures (tests/truth/*-ncu.tsv, *-idioms.tsv, *-global.tsv).
# TRUTH_SEED and TRUTH_COUNT choose another corpus (the seed is printed);
# TRUTH_ONLY=main|idioms|global|sync|kepler runs that corpus alone (a fixture recorded anew).
# kepler (no GPU only): the corpus graded as the course's Tesla K40 (--gpu kepler) in
# each of its bank modes, against Kepler's banks as the Programming Guide defines them
# (compare-kepler.py): the 8-byte mode on the main corpus's parts, the 4-byte mode on
# a corpus of one type of each width whose launchers ask for it.
set -u
build=${1:?usage: check-truth.sh BUILD GRADER [gpu]}
grader=${2:?usage: check-truth.sh BUILD GRADER [gpu]}
mode=${3:-emulator}
here=$(dirname "$0")
out=$build/truth
seed=${TRUTH_SEED:-20261124}
rm -rf "$out" && mkdir -p "$out" || exit 1
only=${TRUTH_ONLY:-all}
wants() { [ "$only" = all ] || [ "$only" = "$1" ]; }
# stamp FILE: a recorded file's first line says which card, driver, ncu and commit
stamp() { [ -f "$1" ] && { printf '# %s\n' "$made"; cat "$1"; } > "$1.tmp" && mv "$1.tmp" "$1"; }
# each_card SUFFIX: every card's recorded file of that kind (tests/truth/CARD-SUFFIX)
each_card() { for f in "$here"/*-"$1"; do [ -f "$f" ] && echo "$f"; done; }
# One library a part, the kit's flags, as many at once as there are cores; the
# emulator reads the compute_90 PTX alone, so no other architecture is built for it
# (TEST_ARCH, tests/tests.mk; LAB_LIB_CACHE: the lab cache, as the kit's own builds).
arch=
[ "$mode" = gpu ] || arch="NVCC_ARCH=${TEST_ARCH:--gencode arch=compute_90,code=[sm_90,compute_90]}"
# The parts' host code is the corpus's own launchers, compiled without optimisation:
# nvcc's -O is the host compiler's alone (the PTX, cubins and fatbinary are the same
# bytes at -O0 as at -O3; cicc and ptxas optimise device code either way), and a
# part's 56 launchers took 1.0 CPU-s of g++ at -O3, 0.3 at -O0. What a part's
# kernels do is decided by the device code alone, which the grader runs.
# (TRUTH_NVCCFLAGS: the kit's NVCCFLAGS with -O0, tests/tests.mk.)
host_opt="NVCCFLAGS=${TRUTH_NVCCFLAGS:--lineinfo -O0}"
# build_parts DIR PART...: each part's library, by one make (its truth-libs, outside the
# build jail: the corpus is the kit's own code), as many at once as there are cores;
# LAB_LIB_CACHE: the lab cache, as for the kit's own builds (none where it is unset).
build_parts() {
    local dir=$1 libs=() p
    shift
    for p in "$@"; do libs+=("$dir/$p.so"); done
    # its own -j, not the jobs of a make that runs this script (which it would warn of)
    local flags
    flags=$(printf '%s' "${MAKEFLAGS:-}" |
            sed -E -e 's/ ?--jobserver-(auth|fds)=[^ ]*//g' -e 's/(^| )-j[0-9]*( |$)/\1\2/g')
    MAKEFLAGS=$flags make -s --no-print-directory -j"$(nproc)" truth-libs TRUTH_LIBS="${libs[*]}" \
        LAB_CACHE="${LAB_LIB_CACHE:-}" "$host_opt" ${arch:+"$arch"}
}
# grade_parts DIR OUT OK_RCS GRADER_ARGS... -- PART...: each part graded into OUT
# (PART.json, PART.txt), as many at once as there are cores by emulation (one at a
# time on a GPU, whose measurements are not to share it); an exit status not in
# OK_RCS stops the run, naming the part.
grade_parts() {
    local dir=$1 to=$2 okrc=$3 args=() p rc
    shift 3
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    mkdir -p "$to"
    printf '%s\n' "$@" | xargs -P "$([ "$mode" = gpu ] && echo 1 || nproc)" -I{} sh -c \
        'd=$1 p=$2 t=$3; shift 3; "$0" "$@" --corpus "$d/$p.tsv" --lib "$d/$p.so" --repeats 1 \
             --json "$t/$p.json" > "$t/$p.txt" 2>&1; echo $? > "$t/$p.rc"' "$grader" "$dir" {} "$to" "${args[@]}"
    for p in "$@"; do
        rc=$(cat "$to/$p.rc" 2>/dev/null || echo none)
        case " $okrc " in *" $rc "*) ;; *)
            echo "check-truth: ${args[*]} on $p: exit $rc"; tail -n 5 "$to/$p.txt"; return 1 ;;
        esac
    done
}
if [ "$mode" = gpu ]; then
    backends="counters trace emulator"
    card=$(bash "$here/card-name.sh") || exit 1
    rec=$out/recorded/tests/truth
    mkdir -p "$rec" || exit 1
    made="recorded by make check-truth-gpu on $(nvidia-smi --query-gpu=name,compute_cap,driver_version \
        --format=csv,noheader 2>/dev/null | head -n1 | awk -F', ' '{ cc = $2; sub(/\./, "", cc)
        printf "%s (sm_%s, driver %s)", $1, cc, $3 }'), Nsight Compute $(ncu --version 2>/dev/null | tail -n1 | sed 's/^Version //; s/ (.*//'),\
 $(date -u +%F), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
else
    backends="emulator"
fi
if wants main; then
python3 "$here/gen-corpus.py" --seed "$seed" ${TRUTH_COUNT:+--count "$TRUTH_COUNT"} "$out" || exit 1
parts=$(cd "$out" && ls part-*.cu | sed 's/\.cu$//')
t0=$(date +%s)
build_parts "$out" $parts || { echo "check-truth: a corpus part did not build" >&2; exit 1; }
echo "check-truth: $(echo $parts | wc -w) parts built in $(( $(date +%s) - t0 )) s"
for b in $backends; do
    t0=$(date +%s)
    grade_parts "$out" "$out/$b" "0 1" --measure "$b" -- $parts || exit 1
    echo "check-truth: graded by $b in $(( $(date +%s) - t0 )) s"
done
fi
if wants kepler && [ "$mode" != gpu ]; then
kep=$out/kepler
if ! wants main; then # the main corpus's parts, built as above
    python3 "$here/gen-corpus.py" --seed "$seed" ${TRUTH_COUNT:+--count "$TRUTH_COUNT"} "$out" > /dev/null || exit 1
    build_parts "$out" $(cd "$out" && ls part-*.cu | sed 's/\.cu$//') || exit 1
fi
mkdir -p "$kep/eight" "$kep/four/graded"
python3 "$here/gen-corpus.py" --seed "$seed" --kepler-four-byte --types char,short,int,longlong,int4 \
    "$kep/four" > /dev/null || exit 1
kparts=$(cd "$kep/four" && ls part-*.cu | sed 's/\.cu$//')
build_parts "$kep/four" $kparts || { echo "check-truth: a part of the 4-byte Kepler corpus did not build" >&2; exit 1; }
grade_parts "$out" "$kep/eight" "0 1" --gpu kepler -- $(cd "$out" && ls part-*.so | sed 's/\.so$//') || exit 1
grade_parts "$kep/four" "$kep/four/graded" "0 1" --gpu kepler -- $kparts || exit 1
python3 "$here/compare-kepler.py" "$out/corpus.tsv" "$kep/eight" 8 || kepler_bad=1
python3 "$here/compare-kepler.py" "$kep/four/corpus.tsv" "$kep/four/graded" 4 || kepler_bad=1
fi
if wants idioms; then
# The idiom corpus (tests/truth/gen-idioms.py): what current CUDA code writes beyond
# plain loads and stores, every backend against Nsight Compute (or, without a GPU,
# the emulator against what it measured on an H100, tests/truth/h100-idioms.tsv).
idi=$out/idioms
python3 "$here/gen-idioms.py" "$idi" || exit 1
iparts=$(cd "$idi" && ls idioms-*.cu | sed 's/\.cu$//')
build_parts "$idi" $iparts 2>/dev/null || { echo "check-truth: an idiom part did not build" >&2; exit 1; }
for b in $backends; do
    grade_parts "$idi" "$idi/$b" "0 1 4" --measure "$b" -- $iparts || exit 1
done
iargs=()
for b in $backends; do iargs+=("$b=$idi/$b"); done
if [ "$mode" = gpu ]; then
    irun=()
    for p in $iparts; do irun+=("$idi/$p.so" "$idi/$p.tsv"); done
    incu=()
    for pass in 1 2; do
        ncu --csv --metrics "$(python3 "$here/compare-idioms.py" --metrics)" "$build/tests/truth-run" \
            "${irun[@]}" > "$idi/ncu-$pass.csv" 2> "$idi/ncu.err" || {
            echo "check-truth: ncu failed on the idioms:"; tail -n 5 "$idi/ncu.err"; exit 1; }
        incu+=(--ncu "$idi/ncu-$pass.csv")
    done
    python3 "$here/compare-idioms.py" "$idi/idioms.tsv" "${iargs[@]}" "${incu[@]}" \
        --differences "$here/idiom-differences.tsv" --write-fixture "$rec/$card-idioms.tsv" || idioms_bad=1
    stamp "$rec/$card-idioms.tsv"
else
    for fx in $(each_card idioms.tsv); do
        echo "check-truth: the idioms against ${fx#$here/}"
        python3 "$here/compare-idioms.py" "$idi/idioms.tsv" "${iargs[@]}" --fixture "$fx" \
            --differences "$here/idiom-differences.tsv" || idioms_bad=1
    done
fi

fi
if wants global; then
# The global-access corpus (tests/truth/gen-global.py): a warp's global loads and
# stores, their requests and 32-byte sectors, every backend against Nsight Compute
# (or, without a GPU, the emulator against what it measured on an H100,
# tests/truth/h100-global.tsv).
glo=$out/global
python3 "$here/gen-global.py" "$glo" || exit 1
gparts=$(cd "$glo" && ls global-*.cu | sed 's/\.cu$//')
build_parts "$glo" $gparts 2>/dev/null || { echo "check-truth: a global part did not build" >&2; exit 1; }
for b in $backends; do
    grade_parts "$glo" "$glo/$b" "0 1" --measure "$b" -- $gparts || exit 1
done
gargs=()
for b in $backends; do gargs+=("$b=$glo/$b"); done
if [ "$mode" = gpu ]; then
    grun=()
    for p in $gparts; do grun+=("$glo/$p.so" "$glo/$p.tsv"); done
    gncu=()
    for pass in 1 2; do
        ncu --csv --metrics "$(python3 "$here/compare-global.py" --metrics)" "$build/tests/truth-run" \
            "${grun[@]}" > "$glo/ncu-$pass.csv" 2> "$glo/ncu.err" || {
            echo "check-truth: ncu failed on the global corpus:"; tail -n 5 "$glo/ncu.err"; exit 1; }
        gncu+=(--ncu "$glo/ncu-$pass.csv")
    done
    python3 "$here/compare-global.py" "$glo/global.tsv" "${gargs[@]}" "${gncu[@]}" \
        --write-fixture "$rec/$card-global.tsv" || global_bad=1
    stamp "$rec/$card-global.tsv"
else
    for fx in $(each_card global.tsv); do
        echo "check-truth: the global accesses against ${fx#$here/}"
        python3 "$here/compare-global.py" "$glo/global.tsv" "${gargs[@]}" --fixture "$fx" || global_bad=1
    done
fi

fi
if wants main; then
args=()
for b in $backends; do args+=("$b=$out/$b"); done
if [ "$mode" = gpu ]; then
    metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
    metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    run=()
    for p in $parts; do run+=("$out/$p.so" "$out/$p.tsv"); done
    # Two passes: the hardware is not always repeatable (compare-truth.py says how)
    ncu_args=()
    for pass in 1 2; do
        t0=$(date +%s)
        ncu --csv --metrics "$metrics" "$build/tests/truth-run" "${run[@]}" > "$out/ncu-$pass.csv" 2> "$out/ncu.err" || {
            echo "check-truth: ncu failed:"; tail -n 5 "$out/ncu.err"; exit 1; }
        echo "check-truth: Nsight Compute profiled the corpus (pass $pass) in $(( $(date +%s) - t0 )) s"
        ncu_args+=(--ncu "$out/ncu-$pass.csv")
    done
    # what this kind of card measured before counts too, on that kind alone
    [ -f "$here/$card-ncu.tsv" ] && ncu_args+=(--fixture "$here/$card-ncu.tsv")
    python3 "$here/compare-truth.py" "$out/corpus.tsv" "${args[@]}" "${ncu_args[@]}" \
        --write-fixture "$rec/$card-ncu.tsv" --problems "$out/problems.txt" || main_bad=1
    stamp "$rec/$card-ncu.tsv"
else
    for fx in $(each_card ncu.tsv); do
        echo "check-truth: the corpus against ${fx#$here/}"
        python3 "$here/compare-truth.py" "$out/corpus.tsv" "${args[@]}" --fixture "$fx" \
            --problems "$out/problems-$(basename "$fx" .tsv).txt" || main_bad=1
    done
fi
fi
# card-name.sh's names and compare-labs.py's rule for the hardware's differences
# (both used on a GPU), held here without one
if [ "$mode" != gpu ] && wants main; then
    python3 "$here/test-tools.py" > "$out/test-tools.txt" || { cat "$out/test-tools.txt"; main_bad=1; }
    tail -n 1 "$out/test-tools.txt"
fi
if wants sync; then
# The synchronisation corpus (tests/truth/gen-sync.py): the emulator's verdicts on
# barriers, member masks, races and bounds against what compute-sanitizer's synccheck,
# racecheck and memcheck report (tests/truth/sync-verdicts.tsv; on a GPU, measured
# anew by tests/truth/sync-gpu.sh, whose file then replaces it).
syn=$out/sync
python3 "$here/gen-sync.py" "$syn" || exit 1
"${NVCC:-nvcc}" -ptx -arch=sm_90 -lineinfo -diag-suppress 177 -o "$syn/sync.ptx" "$syn/sync.cu" || {
    echo "check-truth: the sync corpus does not build" >&2; exit 1; }
"$build/tests/sync-emulate" "$syn/sync.ptx" "$syn/sync.tsv" > "$syn/emulator.tsv" || {
    echo "check-truth: the emulator could not run the sync corpus" >&2; exit 1; }
if [ "$mode" = gpu ]; then
    bash "$here/sync-gpu.sh" "$syn" || sync_bad=1
    cp "$syn/sync-verdicts.tsv" "$rec/sync-verdicts.tsv"
    python3 "$here/compare-sync.py" "$syn/sync-verdicts.tsv" "$syn/emulator.tsv" "$syn/sync.tsv" \
        "$here/sync-differences.tsv" --expected "$here/sync-verdicts.tsv" || sync_bad=1
    echo "check-truth: what the checkers said is in $rec/sync-verdicts.tsv: it replaces tests/truth/sync-verdicts.tsv"
else
    python3 "$here/compare-sync.py" "$here/sync-verdicts.tsv" "$syn/emulator.tsv" "$syn/sync.tsv" \
        "$here/sync-differences.tsv" || sync_bad=1
fi
fi
[ -z "${main_bad:-}" ] || { echo "check-truth: the corpus differs from the hardware's (above)"; exit 1; }
[ -z "${idioms_bad:-}" ] || { echo "check-truth: the idiom corpus differs (above)"; exit 1; }
[ -z "${kepler_bad:-}" ] || { echo "check-truth: the corpus graded as the K40 differs from Kepler's banks (above)"; exit 1; }
[ -z "${sync_bad:-}" ] || { echo "check-truth: the synchronisation corpus differs (above)"; exit 1; }
[ -z "${global_bad:-}" ] || { echo "check-truth: the global-access corpus differs (above)"; exit 1; }
