# lib.sh - what the batch tests (tests/batch/test-batch-*.sh) share: the
# kit, a scratch folder, the fakes of nvcc and the grader (fake-nvcc,
# fake-grader: where a GPU or minutes of nvcc would be needed), a make that
# counts the builds, and the checks of a gradebook. Sourced; BUILD is $1.
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=$(cd "$HERE/../.." && pwd)
BATCH=$KIT/$BUILD/smemlab-batch
GRADER=$KIT/$BUILD/smemlab-grade
T=$(mktemp -d /tmp/smemlab-test-batch.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
export TMPDIR=$T/tmp # scratch folders, and those a kill -9 leaves behind
mkdir -p "$TMPDIR"
FAKE=(--grader "$HERE/fake-grader" --nvcc "$HERE/fake-nvcc" --nvcc-arch=-fake --plain)
# Builds run in the jail, which passes nvcc no environment but what it is told
# (make's BUILD_KEEP_ENV) and lets it write nothing outside its build folder:
# the fake's sleep gets through; builds are counted by a make in front of the real one.
export BUILD_KEEP_ENV=FAKE_NVCC_SLEEP
REAL_MAKE=$(command -v make)
mkdir -p "$T/bin"
printf '#!/bin/bash\ncase " $* " in *" lab-lib "*) [ -n "${MAKE_LOG:-}" ] && echo "$*" >> "$MAKE_LOG";; esac\nexec %s "$@"\n' \
    "$REAL_MAKE" > "$T/bin/make"
chmod +x "$T/bin/make"
KERNELS=(setRowReadColPad setRowReadColDynPad)
fails=0 passes=0

ok() { passes=$((passes + 1)); echo "  ok    $*"; }
no() { fails=$((fails + 1)); echo "  FAIL  $*"; }
expect() { # expect DESCRIPTION COMMAND...: the command succeeds
    local d=$1; shift
    if "$@"; then ok "$d"; else no "$d"; fi
}
# field STUDENT COLUMN [RESULTS]: a gradebook field (python's csv, RFC 4180)
field() {
    python3 - "$1" "$2" "${3:-$T/res}/gradebook.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
print(next((r[sys.argv[2]] for r in rows if r["student"] == sys.argv[1]), "<missing>"))
EOF
}
id_of() { # id_of NAME [RESULTS]: the student id the gradebook gives a name
    python3 - "$1" "${2:-$T/res}/gradebook.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
print(next((r["student"] for r in rows if r["name"] == sys.argv[1]), "<missing>"))
EOF
}
reason_has() { # reason_has STUDENT TEXT [RESULTS]
    local got; got=$(field "$1" reason "${3:-$T/res}")
    if [[ $got == *"$2"* ]]; then ok "$1: $2"; else no "$1: want '$2' in the reason, got '$got'"; fi
}
status_is() { # status_is STUDENT STATUS POINTS [RESULTS]
    local s p; s=$(field "$1" status "${4:-$T/res}"); p=$(field "$1" points "${4:-$T/res}")
    if [ "$s" = "$2" ] && [ "$p" = "$3" ]; then ok "$1: $2 $3"; else no "$1: want $2 $3, got $s $p"; fi
}
validate() { # validate RESULTS [LAB KERNEL...]: every format against its schema (default: lab 3's)
    local results=$1
    shift
    [ $# -gt 0 ] || set -- lab3 "${KERNELS[@]}"
    if python3 "$HERE/validate.py" "$results" "$@" > "$T/validate.log" 2>&1 &&
       xmllint --noout --schema "$HERE/junit.xsd" "$results/junit.xml" 2>> "$T/validate.log"; then
        ok "reports valid: $(tail -n1 "$T/validate.log")"
    else
        no "reports invalid:"; cat "$T/validate.log"
    fi
}
SOL=$KIT/labs/lab3-padding/lab3.cu # any lab 3 file: the fake grader reads only its markers
SKEL=$KIT/labs/lab3-padding/lab3.cu
variant() { cp "$SOL" "$1"; printf '// %s\n' "${@:2}" >> "$1"; }


# batch_finish NAME: the tally, and the status of the script.
batch_finish() {
    echo "batch tests ($1): $passes passed, $fails failed"
    [ $fails = 0 ]
}
