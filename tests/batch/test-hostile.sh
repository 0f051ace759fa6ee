#!/usr/bin/env bash
# test-hostile.sh BUILD - a hostile class through the real smemlab-batch and the
# real nvcc (make check-hostile, part of make check; no GPU needed: builds are
# what is tested, so the fake grader grades what was built).
#
# Next to two honest students: includes outside the submission (absolute,
# relative, computed by a macro, probed with __has_include), an endless
# include (/dev/zero), a template bomb, a macro bomb, a file that compiles for
# minutes, .incbin in inline assembly, #line naming a file, a source over the
# size cap, an archive whose lab3.cu is a link to another student's file.
# Each must get its reason within its limit (short ones here: 10 s of CPU a
# compiler process, so 30 s of wall time a build; 512 MiB, 16 MiB), the
# honest ones must be built and graded (however busy the machine: the limit
# is CPU), and the batch itself must stay under BATCH_RSS_BOUND_KB of memory
# (its VmHWM, read while it runs).
# A second, smaller class runs with --build-sandbox portable: what a machine
# without Landlock gets (the endless include is then stopped by the memory
# limit instead of the kernel).
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=$(cd "$HERE/../.." && pwd)
BATCH=$KIT/$BUILD/smemlab-batch
NVCC=${NVCC:-nvcc}
BATCH_RSS_BOUND_KB=${BATCH_RSS_BOUND_KB:-65536} # the batch's own peak, stated: 64 MiB
# 512 MiB: an honest lab 3 builds in 384; the template bomb reaches it in about
# 4 s of CPU here (1 GiB took 9 s: too near the CPU limit to tell them apart)
TIMEOUT=10 MEMORY=512M OUTPUT=16M MAX_SOURCE=400000
WALL=$((3 * TIMEOUT)) # grader/base/build_limits.h
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "  ok    $*"; }
no() { fails=$((fails + 1)); echo "  FAIL  $*"; }
if ! command -v "$NVCC" > /dev/null; then
    echo "  skip  (no nvcc: the hostile class needs the real compiler)"
    exit 0
fi
T=$(mktemp -d /tmp/smemlab-test-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
# What a student wants to read: the kit's solution (the student kit has none:
# then its skeleton stands for it, as much outside a submission).
SECRET=$KIT/solutions/lab3-padding/lab3.cu
[ -f "$SECRET" ] || SECRET=$KIT/labs/lab3-padding/lab3.cu
HONEST=$KIT/labs/lab3-padding/lab3.cu
FAKE=(--grader "$HERE/fake-grader" --nvcc-arch=-arch=sm_75 --plain)
LIMITS=(--build-timeout $TIMEOUT --build-memory $MEMORY --build-output $OUTPUT --max-source $MAX_SOURCE)

field() { # field RESULTS STUDENT COLUMN: from the gradebook
    python3 - "$1/gradebook.csv" "$2" "$3" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(next((r[sys.argv[3]] for r in rows if r["student"] == sys.argv[2]), "<missing>"))
EOF
}
record() { # record RESULTS STUDENT KEY: from STUDENT.json
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1/$2.json" "$3" 2> /dev/null
}
# reason_is RESULTS STUDENT WANT [SECONDS]: the reason, exactly, and the build within SECONDS
reason_is() {
    local got secs; got=$(field "$1" "$2" reason); secs=$(record "$1" "$2" build_seconds)
    if [ "$got" != "$3" ]; then no "$2: want '$3', got '$got'"; return; fi
    if [ -n "${4:-}" ] && ! awk -v s="${secs:-0}" -v l="$4" 'BEGIN { exit !(s <= l) }'; then
        no "$2: the right reason, but after ${secs} s (limit $4 s)"; return
    fi
    ok "$2: $3${secs:+ (build $(printf '%.1f' "$secs") s)}"
}
built() { # built RESULTS STUDENT: compiled, then graded
    local s; s=$(field "$1" "$2" status)
    [ "$s" = graded ] && ok "$2: built and graded ($(field "$1" "$2" points)/$(field "$1" "$2" max))" \
        || no "$2: honest, yet $s: $(field "$1" "$2" reason)"
}
outside() { printf 'lab3.cu includes a file outside your submission: only smemlab.h and system headers may be included (it names "%s")' "$1"; }
# run_batch RESULTS CLASS ARGS...: the batch, its peak memory sampled meanwhile (into $T/peak)
run_batch() {
    local res=$1 class=$2; shift 2
    local t0=$SECONDS
    "$BATCH" "${FAKE[@]}" "${LIMITS[@]}" -j 2 "$@" lab3 "$class" -o "$res" > "$T/run.log" 2>&1 &
    local pid=$! hwm=0 v
    while kill -0 $pid 2> /dev/null; do
        v=$(awk '/^VmHWM:/ { print $2 }' /proc/$pid/status 2> /dev/null)
        [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
        sleep 0.2
    done
    wait $pid
    rc=$?
    echo "$hwm" > "$T/peak"
    echo "  (the batch: exit $rc in $((SECONDS - t0)) s, its own peak resident memory $hwm KB)"
}

echo "[$SECONDS s] == a hostile class, every layer the machine gives ($("$KIT/$BUILD/smemlab-build-jail" --probe | sed -n 2p))"
C=$T/class
mkdir -p "$C/ben"
cp "$HONEST" "$C/ann.cu"
cp "$HONEST" "$C/ben/lab3.cu" && echo "// ben's own" >> "$C/ben/lab3.cu"
echo "#include \"$SECRET\"" > "$C/abs.cu"
echo "#include \"../../../../../../../../../../../../..$SECRET\"" > "$C/rel.cu"
{ echo "#define PATH \"$SECRET\""; echo "#include PATH"; } > "$C/macro.cu"
{ echo "#if __has_include(\"$SECRET\")"; echo "#include \"$SECRET\""; echo "#endif"; cat "$HONEST"; } > "$C/probe.cu"
{ echo '#define ENDLESS "/dev/zero"'; echo '#include ENDLESS'; } > "$C/endless.cu"
{ cat "$HONEST"; echo "asm(\".incbin \\\"$SECRET\\\"\");"; } > "$C/incbin.cu"
{ echo '#line 1 "/etc/passwd"'; cat "$HONEST"; } > "$C/line.cu"
cat > "$C/tbomb.cu" <<'EOF'
// 2^26 distinct instantiations: the front end's memory grows until it stops
template <int D, int I> struct T { static const int v = T<D - 1, 2 * I>::v + T<D - 1, 2 * I + 1>::v; };
template <int I> struct T<0, I> { static const int v = I & 7; };
int x = T<26, 0>::v;
EOF
{ echo '#define A0 xx xx xx xx xx xx xx xx xx xx'
  for i in 1 2 3 4 5 6 7 8 9; do printf '#define A%d' $i; for _ in 1 2 3 4 5 6 7 8 9 10; do printf ' A%d' $((i - 1)); done; echo; done
  echo 'A9'; } > "$C/mbomb.cu" # 10^10 tokens written out by the preprocessor
{ echo 'constexpr unsigned long spin(unsigned long n) { unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s = s * 31 + i; return s; }'
  for i in $(seq 1 400); do echo "constexpr unsigned long k$i = spin(100000ul + $i);"; done
  echo 'unsigned long sum() { return 0'; for i in $(seq 1 400); do echo " + k$i"; done; echo '; }'; } > "$C/slow.cu" # minutes of constexpr, little memory
{ cat "$HONEST"; head -c 500000 /dev/zero | tr '\0' '/'; echo; } > "$C/huge.cu"
python3 - "$C" <<'EOF'
import io, sys, tarfile
C = sys.argv[1]
with tarfile.open(f"{C}/mallory.tar.gz", "w:gz") as t:  # lab3.cu: a link to ben's file
    i = tarfile.TarInfo("mallory/lab3.cu"); i.type = tarfile.SYMTYPE; i.linkname = f"{C}/ben/lab3.cu"
    t.addfile(i)
EOF
run_batch "$T/res" "$C"
grep -q "Timing:" "$T/run.log" || { no "the batch did not finish:"; cat "$T/run.log"; }
built "$T/res" ann
built "$T/res" ben
# refused by the scan or nvcc -M, before any compile (an honest one takes 2 s
# alone); 5 s leaves room for a busy machine
reason_is "$T/res" abs "$(outside "$SECRET")" 5
reason_is "$T/res" rel "$(outside "../../../../../../../../../../../../..$SECRET")" 5
reason_is "$T/res" macro "$(outside "$SECRET")" 5
reason_is "$T/res" probe "$(outside "$SECRET")" 5
reason_is "$T/res" endless "$(outside /dev/zero)" 5
reason_is "$T/res" incbin "lab3.cu makes the assembler read a file or expand macros (.incbin): a submission may not use .incbin, .include or assembler macros" $((WALL + 5))
reason_is "$T/res" line "lab3.cu uses #line with a file name or a macro: a submission may not name other files (write #line with a number alone)" 5
reason_is "$T/res" tbomb "the compiler needed more than 512 MiB" $((WALL + 5))
reason_is "$T/res" mbomb "the build wrote a file over the cap of 16 MiB" $((WALL + 5))
# slow computes: its CPU limit stops it, or, on a machine so busy that a build
# gets under a third of a core, the wall limit first
slow_why="the compiler used more than $TIMEOUT s of CPU time (a loop the compiler runs, in constexpr or templates?)"
[ "$(field "$T/res" slow reason)" = "the build ran past $WALL s" ] && slow_why="the build ran past $WALL s"
reason_is "$T/res" slow "$slow_why" $((WALL + 5))
reason_is "$T/res" huge "huge.cu is $(stat -c %s "$C/huge.cu") bytes, over the cap of $MAX_SOURCE"
reason_is "$T/res" mallory "hostile archive mallory.tar.gz: the symbolic link 'mallory/lab3.cu' points outside the archive's folder (to '$C/ben/lab3.cu'); not unpacked"
grep -rq "TOP SECRET\|blockIdx" "$T/res"/{abs,rel,macro,probe,incbin}.json && no "the outside file's text is in a result" || ok "no result shows the outside file's text"
[ "$(cat "$T/peak")" -gt 0 ] && [ "$(cat "$T/peak")" -lt "$BATCH_RSS_BOUND_KB" ] \
    && ok "the batch's own peak memory: $(cat "$T/peak") KB, under the bound of $BATCH_RSS_BOUND_KB KB" \
    || no "the batch's own peak memory: $(cat "$T/peak") KB (bound $BATCH_RSS_BOUND_KB KB)"
stray=$(pgrep -f "$T/tmp/smemlab-batch" | wc -l)
[ "$stray" = 0 ] && ok "no compiler process outlived its build" || no "$stray processes of the builds still run"

echo "[$SECONDS s] == the portable checks alone (--build-sandbox portable: a kernel without Landlock)"
P=$T/portable
mkdir -p "$P"
cp "$C/ann.cu" "$C/abs.cu" "$C/endless.cu" "$C/incbin.cu" "$C/probe.cu" "$P/"
run_batch "$T/res-p" "$P" --build-sandbox portable
built "$T/res-p" ann
reason_is "$T/res-p" abs "$(outside "$SECRET")" 5
reason_is "$T/res-p" probe "$(outside "$SECRET")" 5
reason_is "$T/res-p" endless "the compiler needed more than 512 MiB" $((WALL + 5))
reason_is "$T/res-p" incbin "lab3.cu makes the assembler read a file or expand macros (.incbin): a submission may not use .incbin, .include or assembler macros" $((WALL + 5))
[ "$(cat "$T/peak")" -lt "$BATCH_RSS_BOUND_KB" ] && ok "the batch's own peak memory: $(cat "$T/peak") KB" || no "peak $(cat "$T/peak") KB"

echo "hostile class tests: $passes passed, $fails failed ($SECONDS s)"
[ $fails = 0 ]
