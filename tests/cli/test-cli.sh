#!/usr/bin/env bash
# test-cli.sh GRADER - the grader's command line, exit codes and messages.
#
# Needs no GPU. The checks that grade a lab expect the machine to have none
# (the grader then stops with exit status 3); where a GPU is present they are
# skipped, and tests/gpu/ covers grading.
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 GRADER   (e.g. $0 build/smemlab-grade)" >&2
    exit 2
fi
GRADER=$1
if [ ! -x "$GRADER" ]; then
    echo "test-cli: $GRADER is not an executable: build it with make $GRADER" >&2
    exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-cli.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0
OUT=$TMP/out # stdout and stderr of the last run
RC=0         # its exit status

# run ARGS...: run the grader (stdin closed, colours off) and keep its output.
run() {
    NO_COLOR=1 timeout 120 "$GRADER" "$@" </dev/null >"$OUT" 2>&1
    RC=$?
}

ok() {
    passed=$((passed + 1))
    echo "ok: $1"
}

not_ok() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    echo "  exit status $RC; output:"
    sed 's/^/  | /' "$OUT" | head -n 20
}

# logged FILE TEXT: FILE holds the line TEXT, within 10 s (a server writes its log after it
# has answered the grader, so the line may come a moment after the grade ends).
logged() {
    for _ in $(seq 100); do
        grep -qF -- "$2" "$1" && return 0
        sleep 0.1
    done
    return 1
}

# expect NAME STATUS [SUBSTRING...]: last run exited STATUS, its output has each SUBSTRING.
expect() {
    local name=$1 want=$2
    shift 2
    if [ "$RC" -ne "$want" ]; then
        not_ok "$name: exit status $RC, expected $want"
        return
    fi
    for s in "$@"; do
        if ! grep -qF -- "$s" "$OUT"; then
            not_ok "$name: output lacks \"$s\""
            return
        fi
    done
    ok "$name"
}

# expect_any NAME STATUS SUBSTRING...: exit STATUS and at least one SUBSTRING (case-insensitive).
expect_any() {
    local name=$1 want=$2
    shift 2
    if [ "$RC" -ne "$want" ]; then
        not_ok "$name: exit status $RC, expected $want"
        return
    fi
    for s in "$@"; do
        if grep -qiF -- "$s" "$OUT"; then
            ok "$name"
            return
        fi
    done
    not_ok "$name: output has none of: $*"
}

# --- needs no GPU either way ----------------------------------------------------

run --help
expect "--help" 0 "usage: smemlab-grade" "exit status"

run -h
expect "-h" 0 "exit status"

run --version
expect "--version" 0 "smemlab-grade"

run --list
expect "--list" 0 lab1 lab2 lab3 lab4 setRowReadRow setRowReadColPad setRowReadColDynPad "(optional)"

run --serve-meter "$TMP/m.sock" lab1
expect "--serve-meter with a lab" 2 "serves graders: it takes no lab"
run --serve-meter "$TMP/no-such-dir/m.sock"
expect "--serve-meter where no socket can be made" 2 "cannot serve on $TMP/no-such-dir/m.sock"

run lab11
expect "unknown lab" 2 "lab11"
run 11
expect "unknown lab by number" 2 "11"
run lab1 banana
expect "unknown lab after a good one" 2 "banana"

run --kernel setColReadCol lab3
expect "--kernel naming no kernel of the lab: its kernels listed" 2 "lab3 has no kernel 'setColReadCol'" \
    "setRowReadColPad setRowReadColDynPad" \
    "setColReadCol is lab1's: make lab1 && make grade LAB=lab1 KERNEL=setColReadCol"

run --bogus lab1
expect "unknown option" 2 "--bogus"

run --timeout abc lab1
expect "--timeout abc" 2 "--timeout" "abc"
run --timeout 0 lab1
expect "--timeout 0" 2 "--timeout"
run --timeout -5 lab1
expect "--timeout -5" 2 "--timeout"
run lab1 --timeout
expect "--timeout without a value" 2 "--timeout" "needs a value"
run --repeats 0 lab1
expect "--repeats 0" 2 "--repeats"

run --lib "$TMP/mine.so"
expect "--lib without a lab" 2 "exactly one LAB"
run --lib "$TMP/mine.so" lab1 lab2
expect "--lib with two labs" 2 "exactly one LAB"
run --lib "$TMP/mine.so" --solutions lab1
expect "--lib with --solutions" 2 "--solutions"

mkdir -p "$TMP/empty-build"
run --build-dir "$TMP/empty-build"
expect "no lab given, none built" 2 "make lab1" "$TMP/empty-build"

# a last-lab file naming no lab is no lab at all
mkdir -p "$TMP/junk-build"
echo "lab99" >"$TMP/junk-build/last-lab"
run --build-dir "$TMP/junk-build"
expect "last-lab names an unknown lab" 2 "make lab1"

# --- checked before any GPU work: a missing library, an unwritable --json ------------

run lab1 --lib "$TMP/nonexistent/lab1.so"
expect "lab1 --lib to a missing file: not graded, says to build it" 3 \
    "does not exist: build the lab first" "not graded"

run --build-dir "$TMP/empty-build" lab1
expect "lab1 not built" 3 "build the lab first (make lab1)"

run --build-dir "$TMP/empty-build" --solutions lab2
expect "solution of lab2 not built" 3 "make lab2 SOLUTIONS=1"

# A bad --json path fails before grading starts (no GPU needed to see it).
run --json "$TMP/no-such-dir/report.json" --build-dir "$TMP/empty-build" lab1
expect "--json into a missing directory, before grading" 3 "cannot write" \
    "$TMP/no-such-dir/report.json"
if grep -qF "== lab1" "$TMP/out"; then
    not_ok "--json into a missing directory: graded anyway"
fi
if ls "$TMP"/no-such-dir* >/dev/null 2>&1; then
    not_ok "--json into a missing directory left files behind"
fi

run --json "$TMP/report.json" --build-dir "$TMP/empty-build" lab1
if [ "$RC" -eq 3 ] && [ -s "$TMP/report.json" ] && grep -qE '"exit_code":[[:space:]]*3' "$TMP/report.json" &&
    grep -qF 'build the lab first' "$TMP/report.json" && ! ls "$TMP"/report.json.tmp.* >/dev/null 2>&1; then
    ok "--json for a lab that could not be graded: exit 3, the reason in the JSON, no temp file"
else
    not_ok "--json for a lab that could not be graded (exit 3, JSON with the reason, no temp file)"
fi

# --- grading on a machine without a GPU ---------------------------------------------

if nvidia-smi -L >/dev/null 2>&1; then
    echo "skipped: a GPU is present (grading without a GPU is not tested here)"
else
    # A real library (built by make check-compile), no GPU to run it: its launchers
    # are recorded and the kernels emulated on the CPU (the skeleton loses points:
    # exit 1); a backend asked for by name cannot run: the driver message, exit 3.
    mkdir -p "$TMP/fake-build" &&
        cp "$(dirname "$GRADER")"/compile-check/labs/lab1-square/lab1.{so,fatbin} "$TMP/fake-build/"
    run --build-dir "$TMP/fake-build" lab1
    expect "lab1 on a machine without a GPU: emulated, the skeleton loses points" 1 \
        "emulated on the CPU: no GPU found; speed not measured" "Score:"
    # one screen: each kernel never started is one line naming its TODO in the
    # skeleton; the report ends with what to do next; piped, no colour
    cp -r "$(dirname "$0")/../../labs" "$TMP/labs"
    grader_abs=$(cd "$(dirname "$GRADER")" && pwd)/$(basename "$GRADER")
    (cd "$TMP" && NO_COLOR= timeout 120 "$grader_abs" --build-dir "$TMP/fake-build" lab1 </dev/null >"$OUT" 2>&1)
    RC=$?
    todo=$(grep -n 'TODO(student)' "$TMP/labs/lab1-square/lab1.cu" | head -1 | cut -d: -f1)
    expect "lab1 skeleton: one line a kernel, the TODO's line, Next: last" 1 \
        "setRowReadRow    0/7  TODO  not started: out was never written; fill the TODO at lab1.cu:$todo" \
        "Next: setRowReadRow: out was never written; fill the TODO at labs/lab1-square/lab1.cu:$todo. Course: docs/lab1.md#exercise"
    [ "$(wc -l <"$OUT")" -le 12 ] && [ "$(tail -n1 "$OUT" | cut -c1-5)" = "Next:" ] &&
        ok "lab1 skeleton: $(wc -l <"$OUT") lines, the last one Next:" ||
        not_ok "lab1 skeleton: $(wc -l <"$OUT") lines (at most 12), the last one Next:"
    grep -q $'\033\[' "$OUT" && not_ok "piped output has colour codes" || ok "piped output has no colour codes"
    run --build-dir "$TMP/fake-build" --verbose lab1
    expect "--verbose: every check on its line" 1 "  FAIL  store-requests   not counted" "  FAIL  race "
    run --build-dir "$TMP/fake-build" --kernel setColReadCol --json "$TMP/one.json" lab1
    expect "--kernel grades that kernel alone" 1 "setColReadCol    0/7" "Score: 0/7"
    grep -q "setRowReadRow" "$OUT" "$TMP/one.json" && not_ok "--kernel: another kernel was graded" ||
        ok "--kernel: no other kernel in the report or the JSON"
    run --build-dir "$TMP/fake-build" --measure trace lab1
    expect_any "lab1 --measure trace on a machine without a GPU: exit 3" 3 "driver" "no CUDA GPU"
    alone=$(grep "not graded" "$OUT")

    # Through a meter server (as smemlab-batch grades): a grader that finds no
    # GPU emulates by itself and sends the server nothing; a job for a named
    # backend goes to the server, which says what it found and then ends
    # (status 3), for the batch to try again or give up on it.
    start_server() { # [--measure MODE]
        NO_COLOR=1 "$GRADER" "$@" --serve-meter "$TMP/m.sock" 2>> "$TMP/meter.log" &
        server=$!
        for _ in $(seq 50); do [ -S "$TMP/m.sock" ] && break; sleep 0.1; done
    }
    start_server
    run --build-dir "$TMP/fake-build" --meter-socket "$TMP/m.sock" lab1
    expect "lab1 with a meter server and no GPU: emulated by the grader itself, exit 1" 1 "emulated on the CPU"
    ! grep -q "measured lab1" "$TMP/meter.log" && ok "the meter server was sent nothing" ||
        not_ok "the server measured a job: $(cat "$TMP/meter.log")"
    kill $server; wait $server 2> /dev/null
    rm -f "$TMP/m.sock"
    start_server --measure trace
    run --build-dir "$TMP/fake-build" --meter-socket "$TMP/m.sock" --measure trace lab1
    expect "lab1 --measure trace through a meter server: its answer, exit 3" 3 "$alone"
    logged "$TMP/meter.log" "measured lab1 ($TMP/fake-build/lab1.so) from kernel 1: could not run it" &&
        ok "the meter server measured that job" || not_ok "meter server log: $(cat "$TMP/meter.log")"
    wait $server
    status=$?
    [ $status = 3 ] && ok "a meter server without a GPU ends after its answer, status 3" || not_ok "the server without a GPU: status $status"
    # no server at that socket any more: the grader measures by itself
    run --build-dir "$TMP/fake-build" --meter-socket "$TMP/m.sock" --measure trace lab1
    expect "--meter-socket with no server: measured by the grader itself, exit 3" 3 "$alone"

    # A server that emulates measures what a grader sends it: the plan travels as
    # bytes to another process (a pointer in it means nothing there), and the
    # solution keeps its marks (SMEMLAB_SERVED_LIB: a solution's library).
    if [ -n "${SMEMLAB_SERVED_LIB:-}" ] && [ -f "$SMEMLAB_SERVED_LIB" ]; then
        : > "$TMP/meter.log"
        start_server --measure emulator
        run --lib "$SMEMLAB_SERVED_LIB" --meter-socket "$TMP/m.sock" --measure emulator lab1
        expect "lab1's solution through a meter server that emulates: every check passes" 0 "Score: 21/21"
        logged "$TMP/meter.log" "measured lab1 ($SMEMLAB_SERVED_LIB) from kernel 1: done" &&
            ok "the server measured the plan it was sent" || not_ok "meter server log: $(cat "$TMP/meter.log")"
        kill $server 2> /dev/null; wait $server 2> /dev/null
        rm -f "$TMP/m.sock"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
