#!/usr/bin/env bash
# lab-cache.sh - the content-addressed cache of lab libraries (the Makefile's
# lab_lib; docs/troubleshooting.md#lab-cache). A library built in the build jail
# reads only its source, common/ and the toolchain, so those and the command
# decide every byte of it; an entry is reused only for exactly the same of them.
#
#   lab-cache.sh key NVCC FLAGS SRC OUT COMMON SUPPORT_FLAGS SUPPORT_SRC...
#       prints the key: sha256 of the toolchain (nvcc's and the host compiler's
#       versions, where they are and their sizes and times), the flags, the
#       folder make runs in and SRC and OUT as given (-lineinfo records the
#       source's folder and name; the host code, the output's), the bytes of
#       SRC and of every file of COMMON, how support.o (linked into every
#       library) is made: its flags and the bytes of its sources (not its own
#       bytes: nvcc writes a new id into each object it makes, so they differ
#       from build to build), and the environment the jail lets through
#       (BUILD_KEEP_ENV).
#       The toolchain part is the sha256 of what `toolchain` prints; where
#       LAB_TOOLCHAIN (the environment) holds it, it is not asked again (the
#       Makefile asks once a run: nvcc's and g++'s --version, 20 ms a key).
#   lab-cache.sh toolchain NVCC
#       prints that sha256.
#   lab-cache.sh get KEY KEEP
#       copies the entry's files into KEEP (as nvcc --keep left them there) and
#       exits 0, after checking each against the entry's MANIFEST; exit 1 where
#       there is no entry, and where it is damaged (a file missing, short or
#       changed): that entry is removed, to be built again.
#   lab-cache.sh put KEY KEEP LIB NAME
#       stores KEEP/LIB, KEEP/NAME.fatbin, KEEP/NAME[.*].ptx and KEEP/NAME.*.cubin:
#       written under a temporary name, its MANIFEST last, then renamed into
#       place whole (a build that stops halfway leaves no entry; of two builds
#       of one key at once, one entry stays).
#
# The key's first line names the entry's format: a change to what put stores,
# or to how the jail builds a library, changes it, so that no entry of the old
# format is taken for a new one.
# LAB_CACHE (the environment) is the cache's folder; make passes it. Entries
# unused for LAB_CACHE_DAYS days (30) are removed now and then as entries are
# stored.
set -u
set -o pipefail
cache=${LAB_CACHE:?lab-cache.sh: LAB_CACHE names no folder}

die() { echo "lab-cache.sh: $*" >&2; exit 2; }

# toolchain NVCC: what decides the compiler's output besides the command.
toolchain() {
    local nvcc host cc1 f
    nvcc=$(command -v "$1") || die "no $1"
    nvcc=$(readlink -f "$nvcc")
    host=${NVCC_CCBIN:-$(command -v g++ || command -v gcc)}
    cc1=$("$host" -print-prog-name=cc1plus 2>/dev/null)
    "$nvcc" --version
    "$host" --version
    for f in "$nvcc" "${nvcc%/*}"/{ptxas,fatbinary,nvlink,cudafe++} "${nvcc%/bin/*}"/nvvm/bin/cicc \
             "$(readlink -f "$(command -v "$host")")" "$(readlink -f "$cc1" 2>/dev/null)"; do
        [ -e "$f" ] && stat -L -c '%n %s %Y' "$f"
    done
    stat -L -c '%n %Y' "${nvcc%/bin/*}/include" "${nvcc%/bin/*}/include/cuda_runtime.h" 2>/dev/null
    return 0
}

case ${1:-} in
toolchain)
    [ $# -eq 2 ] || die "usage: toolchain NVCC"
    id=$(toolchain "$2" | sha256sum) || exit 1
    echo "${id%% *}"
    ;;
key)
    [ $# -ge 8 ] || die "usage: key NVCC FLAGS SRC OUT COMMON SUPPORT_FLAGS SUPPORT_SRC..."
    nvcc=$2 flags=$3 src=$4 out=$5 common=$6 support_flags=$7
    shift 7
    [ -f "$src" ] && [ -d "$common" ] || exit 1
    key=$({
        # the entry format (what put stores) and how it is built (3: the layout fixed)
        echo "smemlab lab library 3"
        if [ -n "${LAB_TOOLCHAIN:-}" ]; then echo "toolchain $LAB_TOOLCHAIN"
        else echo "toolchain $(toolchain "$nvcc" | sha256sum | cut -d' ' -f1)"; fi
        printf 'flags %s\ncwd %s\nsrc %s\nout %s\ncommon %s\n' "$flags" "$(pwd -P)" "$src" "$out" "$common"
        for name in ${BUILD_KEEP_ENV:-}; do printf 'env %s=%s\n' "$name" "${!name-}"; done
        sha256sum "$src" | cut -d' ' -f1
        (cd "$common" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
        printf 'support %s\n' "$support_flags"
        sha256sum "$@"
    } | sha256sum) || exit 1 # an input that cannot be read: no key, so nothing cached
    echo "${key%% *}"
    ;;
get)
    [ $# -eq 3 ] || die "usage: get KEY KEEP"
    entry=$cache/$2
    [ -e "$entry" ] || exit 1
    # every file the manifest names, whole and unchanged, and nothing else
    if [ -f "$entry/MANIFEST" ] && (cd "$entry" && sha256sum --quiet --strict -c MANIFEST >/dev/null 2>&1) &&
       [ "$(cd "$entry" && ls -A | grep -vx MANIFEST | sort)" = "$(awk '{ print $2 }' "$entry/MANIFEST" | sort)" ]; then
        cp "$entry"/* "$3"/ && rm -f "$3/MANIFEST" && touch "$entry" && exit 0
    fi
    echo "lab-cache.sh: the entry $entry is damaged: removed, building again" >&2
    rm -rf "$entry"
    exit 1
    ;;
put)
    [ $# -eq 5 ] || die "usage: put KEY KEEP LIB NAME"
    [ -n "$2" ] || exit 0 # no key (the source was missing): nothing to store
    key=$2 keep=$3 lib=$4 name=$5
    mkdir -p "$cache" && chmod 700 "$cache" 2>/dev/null
    tmp=$(mktemp -d "$cache/.new-$key.XXXXXX") || exit 0 # no cache, no harm: the build stands
    shopt -s nullglob
    files=("$keep/$lib" "$keep/$name.fatbin" "$keep/$name".pt[x] "$keep/$name".*.ptx "$keep/$name".*.cubin)
    if cp "${files[@]}" "$tmp"/ && (cd "$tmp" && sha256sum -- * >MANIFEST.tmp && mv MANIFEST.tmp MANIFEST) &&
       chmod 755 "$tmp" && mv -T "$tmp" "$cache/$key" 2>/dev/null; then
        :
    else
        rm -rf "$tmp" # another build stored this key first, or the disk is full
    fi
    if [ $((RANDOM % 32)) -eq 0 ]; then
        find "$cache" -mindepth 1 -maxdepth 1 -type d -mtime +"${LAB_CACHE_DAYS:-30}" -exec rm -rf {} + 2>/dev/null
    fi
    exit 0
    ;;
*)
    die "usage: lab-cache.sh key|get|put ..."
    ;;
esac
