#!/usr/bin/env bash
# check-contract.sh BUILD GRADER - every compiled lab file exports what the grader calls.
#
# `make check-compile` builds each labs/*/*.cu and solutions/*/*.cu into
# BUILD/compile-check/<same path>.so, and each planted variant
# (tests/planted/NAME.patch applied to its solution) into
# BUILD/compile-check/planted/NAME.so. For every lab
# that `GRADER --list` names, the skeleton and the solution must both export
# the launcher launch_<kernel> of each kernel (an optional kernel: the
# solution must, the skeleton may), plus smemlab_contract_version. Labs whose files are not there yet are skipped,
# except lab1-lab4, which must be present; without a solutions/ folder (the
# student kit, make student-kit) the solutions are skipped with a note.
# Needs no GPU.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD GRADER   (e.g. $0 build build/smemlab-grade)" >&2
    exit 2
fi
BUILD=$1
GRADER=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CC_DIR=$BUILD/compile-check
REQUIRED_LABS="lab1 lab2 lab3 lab4"
CONTRACT_SYMBOLS="smemlab_contract_version"

passed=0
failed=0
skipped=0

ok() {
    passed=$((passed + 1))
    echo "ok: $1"
}
not_ok() {
    failed=$((failed + 1))
    echo "FAIL: $1"
}
skip() {
    skipped=$((skipped + 1))
    echo "skipped: $1"
}

if ! command -v nm >/dev/null; then
    echo "check-contract: nm (binutils) is missing" >&2
    exit 2
fi
if [ ! -x "$GRADER" ]; then
    echo "check-contract: $GRADER is not an executable: build it with make $GRADER" >&2
    exit 2
fi
if ! LIST=$("$GRADER" --list 2>&1); then
    echo "check-contract: $GRADER --list failed:" >&2
    echo "$LIST" >&2
    exit 2
fi

# Symbols a library defines and exports, one per line.
exports() {
    nm -D --defined-only "$1" 2>/dev/null | awk 'NF >= 3 { print $NF }' | sed 's/@.*//' | sort -u
}

# has_symbol EXPORTS_FILE SYMBOL
has_symbol() {
    grep -qxF -- "$2" "$1"
}

SYMS=$(mktemp "${TMPDIR:-/tmp}/smemlab-contract.XXXXXX") || exit 2
trap 'rm -f "$SYMS"' EXIT

# check_library WHAT SO REQUIRED_SYMBOLS OPTIONAL_SYMBOLS
check_library() {
    local what=$1 so=$2 required=$3 optional=$4 missing="" sym n=0
    if ! exports "$so" >"$SYMS" || [ ! -s "$SYMS" ]; then
        not_ok "$what: nm -D finds no exported symbols in $so"
        return
    fi
    for sym in $required; do
        n=$((n + 1))
        has_symbol "$SYMS" "$sym" || missing="$missing $sym"
    done
    if [ -n "$missing" ]; then
        not_ok "$what: $so does not export:$missing"
    else
        ok "$what exports its $n symbols"
    fi
    for sym in $optional; do
        has_symbol "$SYMS" "$sym" || echo "  note: $what does not export optional $sym (allowed)"
    done
}

# --- labs, as the grader lists them ---------------------------------------------------
# --list prints "labN  Title  source" then one indented line per kernel,
# "name" or "name (optional)".
labs_seen=""
current=""
declare -A SOURCE REQUIRED OPTIONAL
while IFS= read -r line; do
    if [[ $line =~ ^(lab[0-9]+)[[:space:]] ]]; then
        current=${BASH_REMATCH[1]}
        labs_seen="$labs_seen $current"
        SOURCE[$current]=$(awk '{ print $NF }' <<<"$line")
        REQUIRED[$current]=""
        OPTIONAL[$current]=""
    elif [[ -n $current && $line =~ ^[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)([[:space:]]+\(optional\))?[[:space:]]*$ ]]; then
        if [ -n "${BASH_REMATCH[2]}" ]; then
            OPTIONAL[$current]="${OPTIONAL[$current]} launch_${BASH_REMATCH[1]}"
        else
            REQUIRED[$current]="${REQUIRED[$current]} launch_${BASH_REMATCH[1]}"
        fi
    fi
done <<<"$LIST"

if [ -z "$labs_seen" ]; then
    echo "check-contract: $GRADER --list named no labs:" >&2
    echo "$LIST" >&2
    exit 2
fi
for lab in $REQUIRED_LABS; do
    case " $labs_seen " in
    *" $lab "*) ;;
    *) not_ok "$GRADER --list does not list $lab" ;;
    esac
done

for lab in $labs_seen; do
    src=${SOURCE[$lab]}                 # labs/lab1-square/lab1.cu
    sol_src=solutions/${src#labs/}      # solutions/lab1-square/lab1.cu
    skeleton=$CC_DIR/${src%.cu}.so
    solution=$CC_DIR/${sol_src%.cu}.so
    required=" $REQUIRED_LABS "
    if [ -z "${REQUIRED[$lab]}${OPTIONAL[$lab]}" ]; then
        not_ok "$lab: $GRADER --list shows no kernels"
        continue
    fi
    for pair in "skeleton:$skeleton" "solution:$solution"; do
        kind=${pair%%:*}
        so=${pair#*:}
        cu=${so#"$CC_DIR"/}
        cu=${cu%.so}.cu
        if [ ! -f "$so" ]; then
            if [ "$kind" = solution ] && [ ! -d "$ROOT/solutions" ]; then
                skip "$lab solution: there is no solutions/ (the student kit): only the skeleton is checked"
            elif [[ $required == *" $lab "* ]]; then
                if [ -f "$ROOT/$cu" ]; then
                    not_ok "$lab $kind: $so is missing: run make check-compile (it builds $cu)"
                else
                    not_ok "$lab $kind: $so is missing, and so is its source $cu (lab1-lab4 must exist)"
                fi
            else
                skip "$lab $kind: $so not built yet"
            fi
            continue
        fi
        if [ "$kind" = solution ]; then
            check_library "$lab $kind" "$so" "${REQUIRED[$lab]} ${OPTIONAL[$lab]} $CONTRACT_SYMBOLS" ""
        else
            check_library "$lab $kind" "$so" "${REQUIRED[$lab]} $CONTRACT_SYMBOLS" "${OPTIONAL[$lab]}"
        fi
    done
done

# --- planted bugs: each patch applies and compiles ---------------------------------
planted_any=0
for patch in "$ROOT"/tests/planted/*.patch; do
    [ -e "$patch" ] || continue
    planted_any=1
    name=$(basename "$patch" .patch)
    so=$CC_DIR/planted/$name.so
    if [ ! -f "$so" ]; then
        not_ok "planted $name: $so is missing: run make check-compile (it applies tests/planted/$name.patch and builds it)"
        continue
    fi
    check_library "planted $name" "$so" "$CONTRACT_SYMBOLS" ""
done
[ "$planted_any" -eq 1 ] || skip "no tests/planted/*.patch"

echo "$passed passed, $failed failed ($skipped skipped)"
[ "$failed" -eq 0 ]
