#!/usr/bin/env bash
# test-batch-kill.sh BUILD - smemlab-batch without a GPU: a run killed with -9 at random points and run again gives the same gradebook; one killed mid-build is ended by the next
# (make check-full: the kill sections; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

echo "[$SECONDS s] == kill -9 at random points, re-run: the same gradebook"
K=$T/kill
mkdir -p "$K"
for i in $(seq 1 16); do variant "$K/s$i.cu" "s$i" "FAKE-POINTS: $((i % 7)) $(( (i * 5) % 7 ))"; done
variant "$K/bad.cu" bad FAKE-COMPILE-ERROR
cp "$K/s3.cu" "$K/twin.cu"
export FAKE_GRADER_SLEEP=0.05 FAKE_NVCC_SLEEP=0.05
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-ref" > /dev/null 2>&1
kills=0 partial=0 prev=0 total=$(ls "$K" | wc -l)
for round in $(seq 1 16); do
    "$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-kill" > /dev/null 2>&1 &
    pid=$!
    # Half the rounds die at a random moment of the first second (discovery,
    # first builds); the others once this run has recorded something new, a
    # random 0-0.2 s later (mid-build, mid-grading, mid-write): however fast
    # or slow the machine, every round both makes progress and is cut short
    # (a longer wait let a fast machine finish the class in the second round).
    if [ $((round % 2)) = 1 ]; then
        sleep "0.$(( RANDOM % 10 ))"
    else
        for _ in $(seq 1 600); do
            [ "$(ls "$T"/res-kill/*.json 2>/dev/null | wc -l)" -gt "$prev" ] && break
            kill -0 $pid 2>/dev/null || break
            sleep 0.05
        done
        sleep "0.$(( RANDOM % 3 ))"
    fi
    killed=
    kill -9 $pid 2>/dev/null && kills=$((kills + 1)) && killed=1
    wait $pid 2>/dev/null
    for f in "$T"/res-kill/*.json; do
        [ -e "$f" ] || continue
        python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$f" 2>/dev/null || { no "round $round: $f is not whole JSON"; break; }
    done
    got=$(ls "$T"/res-kill/*.json 2>/dev/null | wc -l)
    [ "$got" -gt "$prev" ] && [ "$got" -lt "$total" ] && [ -n "$killed" ] && partial=$((partial + 1))
    prev=$got
    [ "$got" = "$total" ] && break
done
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$K" -o "$T/res-kill" > /dev/null 2>&1
unset FAKE_GRADER_SLEEP FAKE_NVCC_SLEEP
[ $partial -ge 2 ] && ok "$kills runs killed with -9, $partial of them part way through the class" || no "only $partial of $kills killed runs were part way: the test proves nothing"
cmp -s "$T/res-ref/gradebook.csv" "$T/res-kill/gradebook.csv" && ok "gradebook after kills = uninterrupted gradebook ($(($(wc -l < "$T/res-ref/gradebook.csv") - 1)) students)" \
    || { no "gradebooks differ"; diff "$T/res-ref/gradebook.csv" "$T/res-kill/gradebook.csv"; }
ls -a "$T/res-kill" | grep -q '\.tmp\.' && no "temporary files left" || ok "no temporary files left"
left=$(ls -d "$TMPDIR"/smemlab-batch.* 2> /dev/null)
[ -z "$left" ] && ok "no scratch folder left by the killed runs (each next run removed the last one's)" || no "scratch folders left: $left"

echo "[$SECONDS s] == a run killed with -9 mid-build: the next one ends its builds and removes its scratch folder"
mkdir -p "$T/slow" && variant "$T/slow/a.cu" a && variant "$T/slow/b.cu" b
FAKE_NVCC_SLEEP=60 "$BATCH" "${FAKE[@]}" -j 2 lab3 "$T/slow" -o "$T/res-slow" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do pgrep -f "smemlab-build-jail.*$TMPDIR/smemlab-batch" > /dev/null && break; sleep 0.05; done
sleep 0.5
kill -9 $pid; wait $pid 2> /dev/null
old=$(ls -d "$TMPDIR"/smemlab-batch.* 2> /dev/null)
builds=$(pgrep -f -- "$old" | wc -l)
# their process groups: the compilers' children (fake-nvcc's sleep) name no scratch folder
groups=$(for p in $(pgrep -f -- "$old"); do ps -o pgid= -p "$p"; done | sort -u | tr -d ' ' | paste -sd,)
t0=$SECONDS
"$BATCH" "${FAKE[@]}" -j 2 lab3 "$T/slow" -o "$T/res-slow" > "$T/run.log" 2>&1
sleep 0.2
# (a zombie nobody reaps, with no init in a container, counts as gone)
stray=$(ps -e -o pid=,pgid=,stat=,args= | awk -v g=",$groups," -v old="$old" \
    '$3 !~ /^Z/ && (index(g, "," $2 ",") || index($0, old))' | grep -v awk)
[ -n "$old" ] && [ "$builds" -gt 0 ] && [ ! -e "$old" ] && [ -z "$stray" ] && grep -q "An earlier run was killed: ended [0-9]* of its processes and removed its scratch folder" "$T/run.log" \
    && [ "$(field a status "$T/res-slow")" = graded ] && [ $((SECONDS - t0)) -lt 30 ] \
    && ok "killed mid-build ($builds processes still building in its scratch folder): the next run ended them, removed the folder and its socket, and graded the class" \
    || no "leftovers: old '$old', $builds building, stray: $stray; $(head -3 "$T/run.log")"

batch_finish kill
