# lib.sh - shared by the integration tests: counting, skipping, the reference
# result of the grader on this machine.

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
not_ok() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    [ -z "${2:-}" ] || sed 's/^/  | /' "$2" | head -n 30
}
# check NAME FILE JQ_EXPR [JQ_OPTION...]: FILE is JSON and JQ_EXPR is true of it.
check() {
    if jq -e "${@:4}" "$3" "$2" >/dev/null 2>&1; then ok "$1"; else not_ok "$1 ($3)" "$2"; fi
}
finish_tests() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# in_tier TIER: this run's tier holds TIER's sections (SMEMLAB_CHECK_TIER: fast
# under make check, full under make check-full, CONTRIBUTING.md says which
# holds what; unset, as when a script is run by hand: both).
in_tier() { [ -z "${SMEMLAB_CHECK_TIER:-}" ] || [ "$SMEMLAB_CHECK_TIER" = "$1" ]; }

# need_tools NAME TOOL...: stop the test when a tool is missing: a skip on a
# student's machine, a failure under CI (CI=true), where make deps-instructor
# must have installed them.
need_tools() {
    local name=$1 t missing=()
    shift
    for t in "$@"; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ -n "${CI:-}" ]; then
        echo "FAIL: $name needs ${missing[*]}: run make deps-instructor" >&2
        exit 1
    fi
    echo "SKIP: $name needs ${missing[*]} (make deps-instructor installs them)"
    exit 0
}

# gpu_present: a GPU the driver can use.
gpu_present() { nvidia-smi -L >/dev/null 2>&1; }

# not_graded_reason: sets reason to why the grader does not grade the
# reference library REF_LIB on this machine (what a student's result must
# say); empty where it grades: on a GPU, or without one by emulation (its
# report then says "emulated on the CPU"). Not a $(...) call: a failure must
# count in this shell.
not_graded_reason() {
    reason=
    gpu_present && return 0
    NO_COLOR=1 "$GRADER" --lib "$REF_LIB" --json "$TMP/ref.json" lab3 >/dev/null 2>&1
    reason=$(jq -r '.labs[0].not_graded // empty' "$TMP/ref.json")
    [ -n "$reason" ] || jq -e '.labs[0].device | startswith("emulated on the CPU")' "$TMP/ref.json" >/dev/null ||
        not_ok "no GPU: the grader neither emulated $REF_LIB nor said why not" "$TMP/ref.json"
}

# doc_block MARKER: the first ```sh block of docs/instructors.md after the line
# holding MARKER, as a reader would paste it (the try-outs are run as written).
doc_block() {
    python3 - "$1" <<'PY'
import sys
lines = open("docs/instructors.md", encoding="utf-8").read().split("\n")
at = next(i for i, l in enumerate(lines) if sys.argv[1] in l)
start = next(i for i in range(at, len(lines)) if lines[i].startswith("```sh")) + 1
end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
print("\n".join(lines[start:end]))
PY
}

# seed_kit KIT: KIT's build/ starts as this run's (BUILD): the grader, the
# recorder, the build jail and support.o, with the objects they were linked
# from, so that the autograder's make lab-tools finds them up to date and builds
# nothing: each is built once a run (make check). All of them get one time, now:
# later than the kit's sources (a zip keeps their times to 2 s, rounded up, so
# an object made within 2 s of its source could read as older), none later
# than another. The full tier (make check-full) builds them from nothing in a
# kit (the /autograder layout, the documented try-outs). Status: make -q's.
seed_kit() {
    local kit=$1
    mkdir -p "$kit/build" &&
    (cd "$BUILD" && tar -cf - smemlab-grade smemlab-record record smemlab-build-jail smemlab-jail-bin *.linked \
        libsmemlab.a grader_kernels.fatbin obj/grader obj/common) | tar -xf - -C "$kit/build" || return 1
    local now newest
    newest=$(find "$kit" -path "$kit/build" -prune -o -type f -printf '%T@\n' | sort -n | tail -n 1)
    now=$(date +%s)
    while [ "$now" -le "${newest%.*}" ]; do sleep 1; now=$(date +%s); done # a source rounded up to now
    find "$kit/build" -exec touch -h -d "@$now" {} + || return 1
    # make lab-tools builds nothing (not make -q: the kit's version stamp is FORCE, its
    # recipe runs every time and changes nothing)
    ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$kit" lab-tools 2>&1 | grep -qE '^  (CC|AR|LINK|NVCC) '
}
