#!/usr/bin/env bash
# test-batch-labs.sh BUILD - smemlab-batch without a GPU: labs 7 to 10 through the
# real batch, the real nvcc and the real grader (emulated without a GPU)
# (make check-full; tests/batch/lib.sh has what the batch tests share).
set -u
. "$(dirname "$0")/lib.sh"

echo "[$SECONDS s] == labs 7 to 10 through the real batch, the real nvcc and grader"
if ! command -v nvcc > /dev/null; then
    echo "  skip  (no nvcc)"
    batch_finish labs
    exit
fi
# labs 7 to 10 through the real batch: a solution and a skeleton each (the
# student kit has no solutions: nothing to hold the skeleton against)
for lab in lab7 lab8 lab9 lab10; do
    speed=3; [ $lab = lab9 ] && speed=4 # the points a GPU alone measures
    if ! ls "$KIT"/solutions/$lab-*/$lab.cu > /dev/null 2>&1; then
        echo "  skip  $lab through the batch (no solutions/ here: the student kit)"
        continue
    fi
    L=$T/real-$lab
    mkdir -p "$L"
    cp "$KIT"/solutions/$lab-*/$lab.cu "$L/sol.cu"
    cp "$KIT"/labs/$lab-*/$lab.cu "$L/skel.cu"
    "$BATCH" --plain --grader "$GRADER" --nvcc-arch=-arch=sm_75 $lab "$L" -o "$T/res-$lab" > "$T/run.log" 2>&1
    if nvidia-smi > /dev/null 2>&1; then
        python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(not (a['status'] == 'graded' and a['points'] == a['max_points'] > 0 and b['points'] < b['max_points']))" \
            "$T/res-$lab/sol.json" "$T/res-$lab/skel.json" \
            && ok "$lab through the batch: the solution full marks, the skeleton less" || no "$lab through the batch: $(head -3 "$T/run.log")"
    else
        python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(not (a['status'] == b['status'] == 'graded' and a['points'] == a['max_points'] - int(sys.argv[3]) and b['points'] < a['points']))" \
            "$T/res-$lab/sol.json" "$T/res-$lab/skel.json" $speed \
            && ok "$lab through the batch, emulated: the solution all but speed's $speed points, the skeleton less" \
            || no "$lab through the batch: $(python3 -c "import json,sys; print([(x, json.load(open(sys.argv[1]+'/'+x+'.json'))['points']) for x in ('sol','skel')])" "$T/res-$lab")"
    fi
    validate "$T/res-$lab" $lab $("$GRADER" --list | awk -v lab=$lab '/^lab[0-9]/ { on = $1 == lab; next } on { print $1 }')
done

batch_finish labs
