#!/usr/bin/env bash
# test-lab-cache.sh BUILD - the lab cache (grader/kit/lab-cache.sh, the
# Makefile's lab_lib) through make lab-lib and the real build jail, with a fake
# nvcc that writes a new nonce into every library it builds: a library with an
# earlier nonce came from the cache. An entry is reused for exactly the same
# inputs and for no other (the source's bytes, its path, the flags, common/),
# a damaged entry is found and built again, a failed build stores nothing, two
# builds of one key at once leave one entry, and make lab-lib (students' files)
# caches nothing unless asked. make check-lab-cache.
set -u
BUILD=${1:-build}
KIT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-lab-cache.XXXXXX") || exit 2
trap '[ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "  ok    $*"; }
no() { fails=$((fails + 1)); echo "  FAIL  $*"; }

# The fake: the library is the source, the flags and a nonce; the fatbinary,
# one PTX and one cubin beside it, as nvcc --keep leaves them.
cat >"$T/nvcc" <<'FAKE'
#!/bin/bash
src= out= keep= deps= flags=
while [ $# -gt 0 ]; do
    case $1 in
        --version) echo "fake nvcc for the lab cache test"; exit 0 ;;
        -o) out=$2; shift ;;
        --keep-dir) keep=$2; shift ;;
        -M) deps=1 ;;
        *.cu) src=$1 ;;
        *) flags="$flags $1" ;;
    esac
    shift
done
if [ -n "$deps" ]; then echo "x.o : $src"; exit 0; fi
grep -q FAKE-COMPILE-ERROR "$src" && { echo "$src(1): error: expected an expression" >&2; exit 1; }
name=$(basename "$src" .cu)
{ cat "$src"; echo "flags:$flags"; echo "nonce: $(date +%s%N) $$"; } >"$out"
cp "$out" "$keep/$name.fatbin"
case $flags in # one architecture: nvcc names its PTX NAME.ptx
    *-single*) cp "$out" "$keep/$name.ptx" ;;
    *) cp "$out" "$keep/$name.compute_90.ptx" ;;
esac
cp "$out" "$keep/$name.compute_90.sm_90.cubin"
FAKE
chmod +x "$T/nvcc"
mkdir -p "$T/w" "$T/other"
cp "$KIT/labs/lab3-padding/lab3.cu" "$T/w/lab3.cu"
cp -r "$KIT/common" "$T/common"
CACHE=$T/cache
# build [DIR [VAR=VALUE...]]: make lab-lib of DIR/lab3.cu, cached in $CACHE
build() {
    local dir=${1:-$T/w}
    shift
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$KIT" lab-lib LAB=lab3 SRC="$dir/lab3.cu" OUT="$dir/lab3.so" \
        NVCC="$T/nvcc" NVCC_ARCH=-fake LAB_COMMON="$T/common" LAB_LIB_CACHE="$CACHE" BUILD="$BUILD" "$@" >"$T/make.log" 2>&1
}
nonce() { grep '^nonce:' "${1:-$T/w}/lab3.so"; }
entries() { find "$CACHE" -mindepth 1 -maxdepth 1 -type d ! -name '.new-*' 2>/dev/null | wc -l; }

echo "== reused for the same inputs"
build && first=$(nonce) && [ -n "$first" ] && [ "$(entries)" = 1 ] && ok "a first build is built and stored (1 entry)" ||
    no "first build: $(cat "$T/make.log"), $(entries) entries"
build && [ "$(nonce)" = "$first" ] && ok "the same inputs again: the library comes from the cache" ||
    no "the same inputs were built again ($(nonce) after $first)"
cmp -s "$T/w/lab3.so" "$T/w/lab3.fatbin" && ok "the fatbinary beside it comes from the same entry" || no "lab3.fatbin differs from lab3.so"

has() { [ -n "$(find "$CACHE" -path "*/$1" 2>/dev/null)" ]; }
has lab3.compute_90.ptx && has lab3.compute_90.sm_90.cubin && has lab3.fatbin && ok "an entry holds the PTX and cubins nvcc kept beside the library" ||
    no "an entry lacks what nvcc kept: $(ls "$CACHE"/*/)"
echo "== never reused for other inputs"
miss() { # miss WHAT: the last build made a new library and a new entry
    local n=$(nonce "${2:-$T/w}")
    if [ -n "$n" ] && [ "$n" != "$first" ] && [ "$(entries)" = "$want" ]; then ok "$1: built, not taken from the cache"
    else no "$1: nonce $n (first $first), $(entries) entries (want $want)"; fi
}
want=2; echo "// one byte more" >>"$T/w/lab3.cu"; build; miss "the source changed"
cp "$KIT/labs/lab3-padding/lab3.cu" "$T/w/lab3.cu"
want=3; build "$T/w" NVCC_ARCH=-fake2; miss "other flags"
want=4; build "$T/w" NVCC_ARCH=-single; miss "one architecture"
has lab3.ptx && ok "one architecture: its PTX, NAME.ptx, stored too" || no "one architecture: no lab3.ptx in the entry"
want=5; echo "// changed" >>"$T/common/smemlab.h"; build; miss "a file of common/ changed"
cp "$KIT/common/smemlab.h" "$T/common/smemlab.h"
want=6; cp "$T/w/lab3.cu" "$T/other/lab3.cu"; build "$T/other"; miss "the same bytes at another path (-lineinfo records it)" "$T/other"
build && [ "$(nonce)" = "$first" ] && ok "the first inputs again: still the first entry" || no "the first inputs: $(nonce), want $first"

echo "== a damaged entry is never trusted"
entry=$(grep -l "$first" "$CACHE"/*/lab3.so | head -n1); entry=${entry%/lab3.so}
damage() { # damage WHAT COMMAND: damage the first entry, then build the first inputs
    eval "$2"
    build
    local n=$(nonce)
    if [ -n "$n" ] && [ "$n" != "$first" ] && grep -q "damaged" "$T/make.log" && ! grep -q "$first" "$entry/lab3.so" 2>/dev/null &&
       (cd "$entry" && sha256sum --quiet --strict -c MANIFEST); then
        ok "$1: found, built again, stored whole"
    else
        no "$1: nonce $n (first $first); $(cat "$T/make.log")"
    fi
    first=$(nonce)
}
damage "a library cut short" 'truncate -s 10 "$entry/lab3.so"'
damage "a cubin changed" 'echo x >>"$entry/lab3.compute_90.sm_90.cubin"'
damage "a file the manifest does not name" 'echo x >"$entry/extra"'
damage "no manifest" 'rm "$entry/MANIFEST"'
damage "a manifest cut short" 'head -c 50 "$entry/MANIFEST" >"$T/m" && cp "$T/m" "$entry/MANIFEST"'

echo "== a failed build stores nothing; make lab-lib caches nothing unless asked"
n0=$(entries)
echo "FAKE-COMPILE-ERROR" >>"$T/w/lab3.cu"
if ! build && [ "$(entries)" = "$n0" ] && [ -z "$(ls -A "$CACHE" | grep '^\.new-')" ]; then ok "a compile error: make fails, no entry, no leftover"
else no "a compile error: $(entries) entries (was $n0)"; fi
cp "$KIT/labs/lab3-padding/lab3.cu" "$T/w/lab3.cu"
echo "// not cached" >>"$T/w/lab3.cu"
build "$T/w" LAB_LIB_CACHE= LAB_CACHE="$CACHE" && [ "$(entries)" = "$n0" ] && ok "make lab-lib without LAB_LIB_CACHE stores nothing (LAB_CACHE set or not)" ||
    no "make lab-lib without LAB_LIB_CACHE: $(entries) entries (was $n0)"

echo "== two builds of one key at once"
# (one key is one OUT, so two makes cannot build it at once in one tree; two
# trees can, at one path in turn, and the store must hold either whole)
rm -rf "$CACHE" && mkdir -p "$CACHE"
for i in 1 2 3 4; do
    mkdir -p "$T/keep$i" && cp "$T/w/lab3.so" "$T/keep$i/lab3.so" && cp "$T/w/lab3.fatbin" "$T/keep$i/lab3.fatbin"
    echo "store $i" >>"$T/keep$i/lab3.so"
done
for i in 1 2 3 4; do LAB_CACHE=$CACHE bash "$KIT/grader/kit/lab-cache.sh" put samekey "$T/keep$i" lab3.so lab3 & done
wait
if [ "$(entries)" = 1 ] && [ -z "$(ls -A "$CACHE" | grep '^\.new-')" ] &&
   (cd "$CACHE/samekey" && sha256sum --quiet --strict -c MANIFEST) && [ "$(grep -c '^store ' "$CACHE/samekey/lab3.so")" = 1 ]; then
    ok "four stores of one key at once: one entry, one build's files whole, no leftover"
else no "four at once: $(entries) entries: $(ls -A "$CACHE")"; fi

echo "lab cache: $passes passed, $fails failed"
[ $fails -eq 0 ]
