#!/usr/bin/env bash
# test-jail.sh BUILD - build/smemlab-build-jail alone (make check-jail).
#
#  1. the source scan: every way to write a directive that reads or names a
#     file (digraphs, comments and splices inside the directive, angle names
#     with '..', #include_next, #import, #embed, #line, GNU line markers,
#     #pragma GCC dependency, _Pragma, __has_include with a computed name),
#     and what only looks like one (raw strings, comments, #line N) passes
#  2. the assembler guard on assembly text: .incbin however written
#  3. the kernel layer (Landlock) with a compiler that misbehaves (fake-cc):
#     reads and writes outside the build folder refused; the portable mode
#     lets them through, which is why both exist
#  4. processes: what the build leaves running is killed; a build past its
#     time is killed with all its processes
#  5. the environment: CPATH, NVCC_APPEND_FLAGS and the like never reach nvcc
#  6. make lab-lib builds through the jail (and as an unprivileged user)
#  7. a compiler that fails: the student's error ("error: does not compile:
#     lab3.cu:N: ...", ptxas's, an undefined function) or the machine's (a
#     library that will not load: "setup: ...", never blamed on the code)
# JAIL_TESTS=refusals: sections 1 and 2 only (a second; make check-mutants).
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
KIT=$(cd "$HERE/../.." && pwd)
JAIL=$KIT/$BUILD/smemlab-build-jail
GUARD=$KIT/$BUILD/smemlab-jail-bin/as
T=$(mktemp -d /tmp/smemlab-test-jail.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
case ${JAIL_TESTS:-} in ""|refusals) ;; *) echo "JAIL_TESTS=$JAIL_TESTS: empty (all) or refusals" >&2; exit 2;; esac
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "  ok    $*"; }
no() { fails=$((fails + 1)); echo "  FAIL  $*"; }
SECRET=$KIT/solutions/lab3-padding/lab3.cu
[ -f "$SECRET" ] || SECRET=$KIT/labs/lab3-padding/lab3.cu
HAVE_NVCC=$(command -v nvcc > /dev/null && echo 1)
LANDLOCK=$("$JAIL" --probe | grep -q "Landlock: ABI" && echo 1)

# jail NAME MODE CC [JAIL ARGS...]: build $T/src/NAME.cu with compiler CC; sets rc, verdict, log
jail() {
    local name=$1 mode=$2 cc=$3; shift 3
    local d=$T/run-$name-$mode
    rm -rf "$d" && mkdir -p "$d/out"
    cp "$T/src/$name.cu" "$d/lab3.cu"
    "$JAIL" --sandbox "$mode" --verdict "$d/verdict" --timeout 20 "$@" --source "$d/lab3.cu" \
        --read "$KIT/common" --out "$d/out" -- "$cc" -std=c++17 -I"$KIT/common" -arch=sm_75 \
        -c "$d/lab3.cu" -o "$d/out/lab3.o" > "$d/log" 2>&1
    rc=$?
    verdict=$(cat "$d/verdict" 2> /dev/null)
    log=$(cat "$d/log")
}
refused() { # refused NAME WANT-IN-VERDICT: (portable mode, any compiler: the scan comes first)
    jail "$1" portable "$KIT/tests/jail/fake-cc"
    if [ $rc = 65 ] && [[ $verdict == "refused: "*"$2"* ]]; then ok "$1: refused ($2)"; else no "$1: rc $rc, verdict '$verdict'"; fi
}
mkdir -p "$T/src"
put() { printf '%s\n' "${@:2}" > "$T/src/$1.cu"; }

echo "[$SECONDS s] == 1. the source scan"
put digraph "%:include \"$SECRET\""
put comment "# /* hidden */ include /* more */ \"$SECRET\""
put splice "#inc\\" "lude \"$SECRET\""
put spaces "   #    include \"$SECRET\""
put angle "#include <../../../../../../../..$SECRET>"
put next "#include_next \"$SECRET\""
put import "#import \"$SECRET\""
put embed '#embed "data.bin"'
put line '#line 7 "/etc/passwd"'
put linemacro '#define F "/etc/passwd"' '#line 7 F'
put marker '# 1 "/etc/shadow"'
put pragma '#pragma GCC dependency "/etc/passwd"'
put pragma_op '_Pragma("GCC dependency \"/etc/passwd\"")'
put hasinc_macro '#define H "/etc/passwd"' '#if __has_include(H)' '#endif'
put hasinc_next "#if __has_include_next(\"$SECRET\")" '#endif'
put stdin '#include "/dev/stdin"'
put procself '#include "/proc/self/environ"'
put classmate "#include \"$T/src/digraph.cu\""
for c in digraph comment splice spaces angle next import hasinc_next stdin procself classmate; do
    refused $c "includes a file outside your submission"
done
refused embed "uses #embed"
refused line "uses #line with a file name"
refused linemacro "uses #line with a file name or a macro"
refused marker "a line marker naming a file"
refused pragma "#pragma GCC dependency"
refused pragma_op "_Pragma(\"GCC dependency"
refused hasinc_macro "__has_include with a computed name"
# what only looks like a directive, and what is allowed: it builds (a fake compiler is enough)
cat > "$T/src/harmless.cu" <<EOF
#include "smemlab.h"
#include <cstdio>
#line 42
#if __has_include(<cstdio>) && __has_include("smemlab.h")
#endif
const char *raw = R"x(
#include "$SECRET"
)x";
const char *str = "#include \"$SECRET\"";
// #include "$SECRET"
/* #line 1 "/etc/passwd" */
int n = 1'000'000; char q = '"'; const char *after = "still code";
EOF
jail harmless portable "$KIT/tests/jail/fake-cc"
[ $rc = 0 ] && [ -z "$verdict" ] && ok "harmless: raw strings, comments, strings, #line N, __has_include of system headers pass" \
    || no "harmless: rc $rc, verdict '$verdict', log $log"

echo "[$SECONDS s] == 2. the assembler guard"
guard() { # guard NAME TEXT WANT(refused|passed)
    printf '%b\n' "$2" > "$T/$1.s"
    SMEMLAB_JAIL_AS=/bin/true SMEMLAB_JAIL_SOURCE=lab3.cu "$GUARD" --64 -o "$T/$1.o" "$T/$1.s" > "$T/$1.log" 2>&1
    local r=$?
    if { [ "$3" = refused ] && [ $r = 1 ] && grep -q "makes the assembler read a file" "$T/$1.log"; } ||
       { [ "$3" = passed ] && [ $r = 0 ]; }; then ok "guard: $1 $3"; else no "guard: $1: exit $r, $(cat "$T/$1.log")"; fi
}
guard plain '\t.incbin "/etc/passwd"' refused
guard upper '\t.INCBIN "/etc/passwd"' refused
guard comment '/* x */.incbin "/etc/passwd"' refused
guard label 'x:.incbin "/etc/passwd"' refused
guard semicolon '\tnop; .incbin "/etc/passwd"' refused
guard charquote ".byte '\"\n.incbin \"/etc/passwd\"" refused
guard include '.include "/etc/passwd"' refused
guard macro '.macro m\n.endm' refused
guard irp '.irp x,1\n.endr' refused
guard altmacro '.altmacro' refused
guard mri '.mri 1' refused
guard section '\t.section .data\n.incbin "/etc/hostname"\n#,"aw"' refused
guard honest '\t.text\n\t.globl f\nf:\n\tret\n\t.section .rodata.str1.1,"aMS",@progbits,1\n.LC0:\n\t.string "include incbin macro"\n\t.ident "GCC"' passed
printf '\t.incbin "/etc/passwd"\n' | SMEMLAB_JAIL_AS=/bin/true "$GUARD" --64 -o "$T/pipe.o" > "$T/pipe.log" 2>&1
[ $? = 1 ] && ok "guard: assembly on stdin is read too" || no "guard: stdin: $(cat "$T/pipe.log")"

if [ "${JAIL_TESTS:-}" = refusals ]; then
    echo "jail tests (refusals only): $passes passed, $fails failed ($SECONDS s)"
    [ $fails = 0 ]; exit
fi
echo "[$SECONDS s] == 3. the kernel layer: a compiler that misbehaves"
put reads "READ $SECRET" "WRITE $T/outside.txt" "READ /etc/hostname"
if [ -n "$LANDLOCK" ]; then
    jail reads auto "$KIT/tests/jail/fake-cc"
    [[ $log == *"cannot read $SECRET"* ]] && [[ $log == *"cannot write $T/outside.txt"* ]] && [ ! -e "$T/outside.txt" ] \
        && ok "Landlock: the build could neither read $SECRET nor write outside its folder" || no "Landlock: $log"
else
    echo "  skip  (no Landlock on this kernel: the kernel layer is not tested here)"
fi
jail reads portable "$KIT/tests/jail/fake-cc"
[[ $log == *"read $SECRET"* ]] && [ -e "$T/outside.txt" ] \
    && ok "portable: the same compiler could (a kernel without Landlock relies on the scan, nvcc -M and the guard)" \
    || no "portable: $log"
rm -f "$T/outside.txt"

echo "[$SECONDS s] == 4. processes"
alive() { # alive PIDS-FILE: those of its pids still running (a zombie nobody reaps is gone)
    local p
    for p in $(cat "$1" 2> /dev/null); do
        case $(ps -o stat= -p "$p" 2> /dev/null) in ""|Z*) ;; *) echo "$p";; esac
    done
}
put spawn "SPAWN 3"
jail spawn auto "$KIT/tests/jail/fake-cc"
pids=$T/run-spawn-auto/out/lab3.o.pids
left=$(alive "$pids")
[ $rc = 0 ] && [ "$(wc -l < "$pids")" = 3 ] && [ -z "$left" ] && ok "what a build leaves running is killed when it ends"     || { no "spawn: rc $rc, still running: $left"; [ -n "$left" ] && kill $left; }
put hang "SPAWN 2" "SLEEP 300"
start=$SECONDS
jail hang auto "$KIT/tests/jail/fake-cc" --timeout 1
took=$((SECONDS - start))
left=$(alive "$T/run-hang-auto/out/lab3.o.pids")
[ $rc = 66 ] && [ "$verdict" = "limit: the build ran past 3 s" ] && [ $took -le 6 ] && [ -z "$left" ] \
    && ok "a build that waits, --timeout 1: killed at 3x that of wall time, with every process, in $took s ($verdict)" \
    || { no "hang: rc $rc, verdict '$verdict', $took s, still running: $left"; [ -n "$left" ] && kill $left; }
put spin "SPIN 60"
start=$SECONDS
# a wall limit far off, so that a machine busy with other builds (make -j2 check
# beside two more) cannot end it first: this is about the CPU limit
jail spin auto "$KIT/tests/jail/fake-cc" --timeout 1 --wall 30
took=$((SECONDS - start))
[ $rc = 66 ] && [ "$verdict" = "limit: the compiler used more than 1 s of CPU time (a loop the compiler runs, in constexpr or templates?)" ] && [ $took -le 20 ] \
    && ok "a build that computes, --timeout 1: stopped at 1 s of CPU in $took s ($verdict)" \
    || no "spin: rc $rc, verdict '$verdict', $took s"
# What a busy machine does to an honest build: it waits longer, computing no more.
put wait "SLEEP 2"
jail wait auto "$KIT/tests/jail/fake-cc" --timeout 1
[ $rc = 0 ] && [ -z "$verdict" ] && [ -f "$T/run-wait-auto/out/lab3.o" ] \
    && ok "a build that waits 2 s under --timeout 1 (CPU) is built: the limit is CPU, not wall time" \
    || no "wait: rc $rc, verdict '$verdict'"
jail wait auto "$KIT/tests/jail/fake-cc" --timeout 1 --wall 1
[ $rc = 66 ] && [ "$verdict" = "limit: the build ran past 1 s" ] && ok "--wall 1 stops it at 1 s of wall time ($verdict)" \
    || no "wait, --wall 1: rc $rc, verdict '$verdict'"

echo "[$SECONDS s] == 5. the environment"
put env "ENV CPATH" "ENV NVCC_APPEND_FLAGS" "ENV LD_PRELOAD" "ENV TMPDIR" "ENV SECRET_TOKEN" "ENV KEPT"
CPATH=/secret NVCC_APPEND_FLAGS=-I/secret LD_PRELOAD= SECRET_TOKEN=abc KEPT=yes jail env auto "$KIT/tests/jail/fake-cc" --keep-env KEPT
[[ $log == *"env CPATH=<unset>"* ]] && [[ $log == *"env NVCC_APPEND_FLAGS=<unset>"* ]] && [[ $log == *"env SECRET_TOKEN=<unset>"* ]] \
    && [[ $log == *"env TMPDIR=$T/run-env-auto/out/tmp"* ]] && [[ $log == *"env KEPT=yes"* ]] \
    && ok "the build sees PATH, its own TMPDIR and what --keep-env names, nothing else" || no "env: $log"
put layout "PERSONALITY"
if setarch "$(uname -m)" -R true 2> /dev/null; then
    jail layout portable "$KIT/tests/jail/fake-cc" # (Landlock leaves /proc unread)
    persona=${log##*personality }
    [[ $log == *"personality "* ]] && (( (16#${persona%%[^0-9a-fA-F]*} & 16#40000) != 0 )) \
        && ok "the compiler runs with its address layout fixed (ADDR_NO_RANDOMIZE): a file builds to the same bytes every time" \
        || no "layout: $log"
else
    echo "  skip  the compiler's fixed address layout: this machine refuses one (setarch -R: a container's seccomp profile?)"
fi

echo "[$SECONDS s] == 6. make lab-lib, through the jail"
if [ -n "$HAVE_NVCC" ]; then
    mkdir -p "$T/mk"
    cp "$KIT/labs/lab3-padding/lab3.cu" "$T/mk/lab3.cu"
    echo "#include \"$SECRET\"" > "$T/mk/peek.cu"
    make -s --no-print-directory -C "$KIT" lab-lib LAB=lab3 SRC="$T/mk/lab3.cu" OUT="$T/mk/lab3.so" NVCC_ARCH=-arch=sm_75 > "$T/mk.log" 2>&1
    [ -f "$T/mk/lab3.so" ] && [ -f "$T/mk/lab3.fatbin" ] && [ ! -e "$T/mk/lab3.so.keep" ] && ok "make lab-lib: an honest file builds (lab3.so, lab3.fatbin)" || no "make lab-lib: $(cat "$T/mk.log")"
    make -s --no-print-directory -C "$KIT" lab-lib LAB=lab3 SRC="$T/mk/peek.cu" OUT="$T/mk/peek.so" NVCC_ARCH=-arch=sm_75 BUILD_VERDICT="$T/mk/verdict" > "$T/mk.log" 2>&1
    [ ! -e "$T/mk/peek.so" ] && grep -q "^refused: peek.cu includes a file outside your submission" "$T/mk/verdict" \
        && grep -q "smemlab-build-jail: peek.cu includes a file outside" "$T/mk.log" && ok "make lab-lib: an outside include is refused, with the reason in BUILD_VERDICT" \
        || no "make lab-lib peek: $(cat "$T/mk.log" "$T/mk/verdict")"
    # nvcc reached through a wrapper script on PATH (as some CI images install it):
    # CUDA's headers are where nvcc itself says, not beside the wrapper
    mkdir -p "$T/wrap" "$T/wr/out" && cp "$KIT/labs/lab3-padding/lab3.cu" "$T/wr/"
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$(readlink -f "$(command -v nvcc)")" > "$T/wrap/nvcc" && chmod +x "$T/wrap/nvcc"
    PATH="$T/wrap:$PATH" "$JAIL" --timeout 60 --source "$T/wr/lab3.cu" --read "$KIT/common" --out "$T/wr/out" -- \
        nvcc -std=c++17 -I"$KIT/common" -arch=sm_75 -c "$T/wr/lab3.cu" -o "$T/wr/out/lab3.o" > "$T/wr.log" 2>&1
    [ $? = 0 ] && [ -f "$T/wr/out/lab3.o" ] && ok "nvcc through a wrapper script on PATH: the build works" || no "nvcc wrapper: $(cat "$T/wr.log")"
    if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1 && command -v runuser > /dev/null &&
       ! runuser -u nobody -- test -x "$JAIL"; then
        echo "  skip  (nobody cannot reach $JAIL: the kit lies in a private folder)"
    elif [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1 && command -v runuser > /dev/null; then
        mkdir -p "$T/nb/out" && cp "$KIT/labs/lab3-padding/lab3.cu" "$T/nb/" && chown -R nobody "$T/nb"
        runuser -u nobody -- "$JAIL" --timeout 60 --source "$T/nb/lab3.cu" --read "$KIT/common" --out "$T/nb/out" -- \
            nvcc -std=c++17 -I"$KIT/common" -arch=sm_75 -c "$T/nb/lab3.cu" -o "$T/nb/out/lab3.o" > "$T/nb.log" 2>&1
        [ $? = 0 ] && [ -f "$T/nb/out/lab3.o" ] && ok "as an unprivileged user (nobody): the build works" || no "as nobody: $(cat "$T/nb.log")"
    fi
else
    echo "  skip  (no nvcc)"
fi

echo "[$SECONDS s] == 7. a compiler that fails: the student's error, or the machine's"
if [ -n "$HAVE_NVCC" ]; then
    # nvcc NAME [COMPILER]: build $T/src/NAME.cu into a library, as make lab-lib does
    nvcc_build() {
        local d=$T/diag-$1
        rm -rf "$d" && mkdir -p "$d/out" && cp "$T/src/$1.cu" "$d/lab3.cu"
        "$JAIL" --verdict "$d/verdict" --timeout 60 --source "$d/lab3.cu" --read "$KIT/common" --out "$d/out" -- \
            "${2:-nvcc}" -std=c++17 -I"$KIT/common" ${ARCHS:--arch=sm_75} -shared -Xcompiler -fPIC "$d/lab3.cu" -o "$d/out/lab3.so" > "$d/log" 2>&1
        rc=$?
        verdict=$(cat "$d/verdict" 2> /dev/null)
        log=$(cat "$d/log")
    }
    { cat "$KIT/labs/lab3-padding/lab3.cu"; echo "int x = ;"; } > "$T/src/syntax.cu"
    line=$(wc -l < "$T/src/syntax.cu")
    nvcc_build syntax
    [ $rc = 2 ] && [ "$verdict" = "error: does not compile: lab3.cu:$line: expected an expression" ] && [[ $log == *"lab3.cu($line): error"* ]] \
        && ok "a syntax error: nvcc's status, its message in the log, \"$verdict\"" || no "syntax: rc $rc, verdict '$verdict'"
    put shared '__global__ void k(int *o) { __shared__ int big[20000]; big[threadIdx.x] = 1; o[0] = big[5]; }'
    nvcc_build shared
    [[ $verdict == "error: does not compile: ptxas error: Entry function '_Z1kPi' uses too much shared data"* ]] \
        && ok "too much shared memory: ptxas's error is the student's ($verdict)" || no "shared: rc $rc, verdict '$verdict'"
    # nvcc's front end runs once an architecture, and says each warning again
    put warns '__global__ void k(int *o) { int unused_a = 3; o[0] = 1; }'
    ARCHS="-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80" nvcc_build warns
    [ $rc = 0 ] && [ "$(grep -c 'unused_a" was declared' <<< "$log")" = 1 ] \
        && ok "a warning said for two architectures is shown once" || no "warns: rc $rc, log: $log"
    [[ $log == *"#pragma nv_diag_suppress"* && $log != *"-diag-suppress"* ]] \
        && ok "nvcc's remark on a flag to silence warnings says what a student can do instead" \
        || no "warns' remark: $log"
    put undefined '__device__ int f(int); __global__ void k(int *o) { o[0] = f(1); }'
    nvcc_build undefined
    [ "$verdict" = "error: does not link: a function it calls is not defined" ] && ok "an undefined device function: does not link" \
        || no "undefined: rc $rc, verdict '$verdict'"
    # a toolchain whose library will not load: the machine's, whatever the code
    mkdir -p "$T/badnv"
    printf '#!/bin/sh\necho "nvcc: error while loading shared libraries: libnvvm.so.4: cannot open shared object file: No such file or directory" >&2\nexit 127\n' > "$T/badnv/nvcc"
    chmod +x "$T/badnv/nvcc"
    cp "$KIT/labs/lab3-padding/lab3.cu" "$T/src/honest.cu"
    nvcc_build honest "$T/badnv/nvcc"
    [ $rc = 67 ] && [[ $verdict == "setup: the compiler stopped (status 127) without naming an error in lab3.cu (it said: nvcc: error while loading shared libraries: libnvvm.so.4"*"a library of the toolchain will not load"* ]] \
        && [[ $log == *"smemlab-build-jail: the compiler stopped"* ]] && ok "a library of the toolchain that will not load: a set-up failure (exit 67), never the code's" \
        || no "bad toolchain: rc $rc, verdict '$verdict'"
else
    echo "  skip  (no nvcc)"
fi

echo "jail tests: $passes passed, $fails failed ($SECONDS s)"
[ $fails = 0 ]
