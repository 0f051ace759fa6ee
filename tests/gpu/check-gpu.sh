#!/usr/bin/env bash
# check-gpu.sh BUILD GRADER - the tests that need a GPU (make check-gpu).
#
# Every grade is made once and judged as often as needed. Stages A, B and C
# share one pool of graders (CHECK_GPU_JOBS at a time, default: the cores),
# which take turns on the GPU as in a batch; E is a pool of its own beside
# them. Each stage's grades are timed (when the first began, the last ended):
# The pool spreads over every GPU CUDA sees (CHECK_GPU_DEVICES="0 1" to choose):
# grade line k measures on GPU k mod n, each GPU taken in turns by its own lock.
#   A  the default measurement (the trace): every solution, skeleton and
#      planted variant, and two labs with --no-counters;
#   B  the same items with --measure counters, for compare-backends;
#   C  through a meter server (smemlab-grade --serve-meter, started again
#      whenever a kernel ends it): the solutions and the variants that crash,
#      hang or break the context, as a batch grades them;
#   E  the same items as A with --measure emulator (the PTX the libraries
#      embed): it needs no GPU;
# then the judgement:
#   1. every solution scores full marks (its report is printed);
#   2. every skeleton loses points;
#   3. without counters nothing passes silently (exit 4);
#   4. every row of tests/planted/manifest.tsv holds, with the message a
#      student would see, and a kernel that crashes or hangs leaves the other
#      kernels graded (stage A, and stage C for its items);
#   5. compare-backends: the counters' verdicts (and requests and wavefronts,
#      labs 1-4) equal the trace's but where backend-differences.tsv says why;
#   6. the same for the emulator against the trace (emulator-differences.tsv):
#      the emulator's counts of labs 1-4 are the GPU's own.
set -u
build=${1:?usage: check-gpu.sh BUILD GRADER}
grader=${2:?usage: check-gpu.sh BUILD GRADER}
here=$(dirname "$0")
expect=$build/tests/expect
out=$build/gpu-results
jobs=${CHECK_GPU_JOBS:-$(nproc)}
if [ ! -f "$build/libsmemlab-trace.so" ]; then # the race check and the 64-bit rule need it
    echo "check-gpu: the trace backend is not built, so the race checks cannot pass;" \
         "make trace-backend says why (the Compute Sanitizer of a full CUDA Toolkit)" >&2
    exit 1
fi
rm -rf "$out" # results of an earlier run must not answer for this one
mkdir -p "$out"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
t_start=$(date +%s)

labs=$("$grader" --list | awk '/^lab[0-9]/ {print $1}')
planted=$(cut -f1 tests/planted/manifest.tsv | grep '\.cu$' | sed 's/\.cu$//' | sort -u)
# CHECK_GPU_ONLY="lab7 lab9 lab1-solution lab3-pad-two": those labs whole (their solution,
# skeleton and planted variants), a lab's solution and skeleton alone (labN-solution), and
# those variants alone, when GPU time is short; empty: everything.
only=" ${CHECK_GPU_ONLY:-} "
selected() { [ "$only" = "  " ] || case $only in *" $1 "* | *" ${1%%-*} "*) true ;; *) false ;; esac; }
labs=$(for lab in $labs; do case $only in "  " | *" $lab "* | *" $lab-solution "*) echo "$lab" ;; esac; done)
planted=$(for name in $planted; do selected "$name" && echo "$name"; done)
[ "$only" = "  " ] || echo "check-gpu: CHECK_GPU_ONLY: labs $(echo $labs), $(echo $planted | wc -w) planted variants"

# --- grading, side by side ---------------------------------------------------

# grade TAG NAME LAB ARGS...: out/TAG/NAME.{json,txt,rc}; "START END NAME" in out/TAG.times
grade() {
    local tag=$1 name=$2 lab=$3 t0=$EPOCHREALTIME
    shift 3
    mkdir -p "$out/$tag"
    "$grader" --json "$out/$tag/$name.json" "$@" "$lab" > "$out/$tag/$name.txt" 2>&1
    echo $? > "$out/$tag/$name.rc"
    echo "$t0 $EPOCHREALTIME $name" >> "$out/$tag.times"
}

# The GPUs the pool spreads over: CHECK_GPU_DEVICES, else every GPU CUDA sees
# (CUDA_VISIBLE_DEVICES's list when set, numbered from 0 as CUDA numbers them).
gpu_devices() {
    if [ -n "${CHECK_GPU_DEVICES:-}" ]; then echo $CHECK_GPU_DEVICES; return; fi
    local n
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then n=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    else n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU'); fi
    seq 0 $(( (n > 0 ? n : 1) - 1 ))
}
devices=($(gpu_devices))

# Run "grade ..." lines from stdin, $jobs at a time; "spread": line k on GPU k mod n
# (--device, or that GPU's meter server for a C line).
run_all() {
    local running=0 k=0 dev
    while read -r line; do
        if [ "${1:-}" = spread ]; then
            dev=${devices[k % ${#devices[@]}]}
            k=$((k + 1))
            case $line in C\ *) line+=" --meter-socket $out/meter-$dev.sock" ;; *) line+=" --device $dev" ;; esac
        fi
        eval "grade $line" &
        running=$((running + 1))
        if [ "$running" -ge "$jobs" ]; then
            wait -n
            running=$((running - 1))
        fi
    done
    wait
}

# Variants compare-backends skips (backend-differences.tsv: a hang both time out on).
skipped=$(awk -F'\t' '$3 == "skip" {print $1}' "$here/backend-differences.tsv")

# Variants whose kernel never ends get a 3 s time limit: what they test (the hang
# is ended and reported, the other kernels still graded) does not need the
# default 10 s, for which they would hold the GPU in every stage.
hanging=" $(awk -F'\t' '$5 ~ /timed out/ {sub(/\.cu$/, "", $1); print $1}' tests/planted/manifest.tsv | sort -u | tr '\n' ' ') "
limit_for() { case $hanging in *" $1 "*) echo "--timeout 3" ;; esac; }

# The items of a stage, one grade line each: TAG NAME LAB ARGS. TAG B: no skipped ones.
items() { # TAG EXTRA...
    local tag=$1 lab name
    shift
    for lab in $labs; do
        echo "$tag $lab-solution $lab --solutions --build-dir $build $*"
        echo "$tag $lab-skeleton $lab --build-dir $build $*"
    done
    for name in $planted; do
        [ "$tag" = B ] && case " $(echo $skipped) " in *" $name "*) continue ;; esac
        [ -f "$build/planted/$name.so" ] && echo "$tag $name ${name%%-*} --lib $build/planted/$name.so $(limit_for $name) $*"
    done
}

# Variants whose kernels crash, hang or end the worker: what a meter server must survive.
breaking=$(awk -F'\t' '$5 ~ /cuda error|timed out|not a record|ended the program|crashed:|did not return/ {sub(/\.cu$/, "", $1); print $1}' \
    tests/planted/manifest.tsv | sort -u | while read -r name; do selected "$name" && echo "$name"; done)

# The grades of stage TAG: how many, when the first began and the last ended
# (seconds after $2, the pool's start), and the three slowest.
stage_time() { # TAG T0
    awk -v tag="$1" -v t0="$2" '{n++; if (n == 1 || $1 < first) first = $1; if ($2 > last) last = $2}
        END {printf "time: stage %s: %d grades, from %.0f s to %.0f s;", tag, n, first - t0, last - t0}' "$out/$1.times"
    awk '{print $2 - $1, $3}' "$out/$1.times" | sort -rn | head -n 3 |
        awk '{printf "%s%s %.1f s", (NR > 1 ? ", " : " slowest: "), $2, $1} END {print ""}'
}

# E needs no GPU: it runs beside the others from the start, a pool of its own.
echo "== E. by emulation, every item (the PTX the libraries embed), beside the others =="
t_pool=$EPOCHREALTIME
{ items E --measure emulator | tee "$out/E.items" | run_all; stage_time E "$t_pool"; } > "$out/E.log" 2>&1 &
emulated=$!

# C's graders measure through a meter server a GPU (started again whenever a kernel ends it).
server_loops=
for dev in "${devices[@]}"; do
    ( while :; do "$grader" --serve-meter "$out/meter-$dev.sock" --device "$dev"; sleep 0.2; done ) \
        2> "$out/meter-$dev.log" &
    server_loops+=" $!"
done
stop_servers() { for loop in $server_loops; do pkill -P "$loop"; kill "$loop" 2> /dev/null; done; }
trap stop_servers EXIT
for dev in "${devices[@]}"; do
    for _ in $(seq 50); do [ -S "$out/meter-$dev.sock" ] && break; sleep 0.1; done
done

{ items A
  for lab in lab1 lab6; do
      case " $(echo $labs) " in *" $lab "*)
          echo "A no-counters-$lab $lab --solutions --no-counters --build-dir $build" ;; esac
  done; } > "$out/A.items"
items B --measure counters > "$out/B.items"
{ for lab in $labs; do echo "C $lab-solution $lab --solutions --build-dir $build"; done
  for name in $breaking; do
      echo "C $name ${name%%-*} --lib $build/planted/$name.so $(limit_for $name)"
  done; } > "$out/C.items"

# A, B and C in one pool: the graders take turns on the GPU anyway, so one
# grader's CPU work and waits (a hung kernel's time limit) overlap another's
# turn instead of ending a stage alone. Those that wait for a time limit start
# first, then labs 6 and 5 (the longest turns), then the rest.
echo "== A (the default measurement), B (--measure counters), C (a meter server), side by side, on GPU ${devices[*]} =="
cat "$out/A.items" "$out/B.items" "$out/C.items" |
    awk -v slow=" $(echo $breaking) " '{p = index(slow, " " $2 " ") ? 0 : $3 == "lab6" ? 1 : $3 == "lab5" ? 2 : 3; print p, $0}' |
    sort -s -n -k1,1 | cut -d' ' -f2- | run_all spread
for tag in A B C; do stage_time $tag "$t_pool"; done
stop_servers
trap - EXIT
wait $emulated
cat "$out/E.log"

# --- judgement -----------------------------------------------------------------

. "$here/../judge.sh"

echo "== 1. solutions score full marks =="
for lab in $labs; do
    cat "$out/A/$lab-solution.txt"
    judge_solution "$out/A/$lab-solution.json" "$(cat "$out/A/$lab-solution.rc")" "$lab solution"
done

echo "== 2. skeletons do not pass =="
for lab in $labs; do
    judge_skeleton "$out/A/$lab-skeleton.json" "$(cat "$out/A/$lab-skeleton.rc")" "$lab skeleton" \
        "$(grep '^Score' "$out/A/$lab-skeleton.txt")"
done

echo "== 3. without counters: correctness and speed graded, counters 'not measured', exit 4 =="
for lab in lab1 lab6; do
    case " $(echo $labs) " in *" $lab "*) ;; *) continue ;; esac
    json=$out/A/no-counters-$lab.json
    rc=$(cat "$out/A/no-counters-$lab.rc")
    case $lab in
    lab1) why=$("$expect" "$json" check setRowReadCol correct pass)
          why+=$("$expect" "$json" check setRowReadCol load-conflicts not-measured "not measured") ;;
    lab6) why=$("$expect" "$json" check conv2dTiled correct pass)
          why+=$("$expect" "$json" check conv2dTiled speed pass)
          why+=$("$expect" "$json" check conv2dTiled global-loads not-measured "not measured") ;;
    esac
    [ "$rc" = 4 ] && [ -z "$why" ] && ok "$lab --no-counters: exit 4, $(grep '^Score' "$out/A/no-counters-$lab.txt")" \
        || bad "$lab --no-counters (exit $rc): $why"
done

echo "== 4. planted wrong variants are caught =="
# the variants only the emulator catches today (emulator-only.tsv): graded and compared,
# their rows held by make check-emulated, not here
emulator_only=" $(grep -v '^#' "$here/emulator-only.tsv" | cut -f1 | tr '\n' ' ') "
while IFS=$'\t' read -r file lab kernel check text; do
    [ "$file" = file ] && continue
    selected "${file%.cu}" || continue
    case $emulator_only in *" ${file%.cu} "*)
        echo "skip  ${file%.cu}: $kernel $check: the emulator's alone ($(grep "^${file%.cu}"$'\t' "$here/emulator-only.tsv" | cut -f2 | cut -c1-80)...)"
        continue ;;
    esac
    judge_row "$out/A/${file%.cu}.json" "$file" "$kernel" "$check" "$text"
    case " $(echo $breaking) " in *" ${file%.cu} "*) # one line: the names' newlines are gone
        judge_row "$out/C/${file%.cu}.json" "$file" "$kernel" "$check" "$text" " (meter server)" ;; esac
done < tests/planted/manifest.tsv
# Held by emulation in make check too; a failure the trace adds to the emulator's is
# one documented in emulator-differences.tsv (stage 6 compares the two).
judge_every_failure "$out/A" tests/planted "trace" "$emulator_only" "$here/emulator-differences.tsv"
for lab in $labs; do
    why=$("$expect" "$out/C/$lab-solution.json" full)
    [ -z "$why" ] && ok "$lab solution (meter server): full marks" || bad "$lab solution (meter server): $why"
done
measured=$(cat "$out"/meter-*.log | grep -c ': measured lab')
echo "meter server: $measured labs measured, $(cat "$out"/meter-*.log | grep -c 'measuring for graders') server starts (${#devices[@]} GPU)"
[ "$measured" -gt 0 ] && ok "the grades went through the meter server" || bad "no grade reached the meter server"

# compare STAGE DIFFERENCES NAMES: every item of STAGE against stage A (the trace)
compare() {
    local stage=$1 differences=$2 names=$3 same=0 differ=0 name
    while read -r _ name _; do
        [ -f "$out/$stage/$name.json" ] || continue
        if python3 "$here/compare-backends.py" "$out/$stage/$name.json" "$out/A/$name.json" "$name" \
            "$here/$differences" "$names"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
        fi
    done < "$out/$stage.items"
    echo "compare-backends: $same the same (or as documented), $differ not"
    [ "$differ" = 0 ] && ok "compare-backends: ${names/,/ and } agree" || bad "compare-backends: ${names/,/ and }: $differ differ"
}

echo "== 5. the counters against the trace (compare-backends) =="
compare B backend-differences.tsv counters,trace

echo "== 6. the emulator against the trace (compare-backends) =="
compare E emulator-differences.tsv emulator,trace

echo "time: check-gpu: $(( $(date +%s) - t_start )) s"
echo "$(( $(date +%s) - t_start )) $(hostname), $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)" > "$out/time.txt"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
