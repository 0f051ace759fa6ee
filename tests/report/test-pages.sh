#!/usr/bin/env bash
# test-pages.sh BUILD GRADER AXE [MEASURE] - the report page (docs/instructors.md#page)
# as students get it: labs graded by emulation, as on a machine without a GPU
# (MEASURE trace: by the Compute Sanitizer's trace, on a GPU), each with --html,
# and every page judged in headless chromium
# (check-pages.py: the lines marked, the checks, the drawings, no script, no
# console error, axe-core clean in light and dark mode). What each page must
# show is worked out here from the student's file, not read from the page:
#
#   lab3, the pad on the wrong dimension: the column read's line 32-way, far
#         off, its warp drawn (32 wavefronts), the hint; the solution: the same
#         line conflict-free, as expected; the skeleton: kernels not started
#   lab9, a store that walks columns: the store's line far off, drawn over its
#         32 sectors
#   lab1, no barrier: the race's two lines linked to each other; a tile
#         overrun: the line the fault names; a kernel the emulator cannot run:
#         not judged, its long instruction's name no wider than the phone
#   lab7, a divergent tree that fails for its requests: its first line off; the
#         input's global load marked with its sectors (global-traffic names it)
#   a file that holds markup (</pre><script>...): shown as text, run never
#
# The student kit has no solutions or planted variants: there its skeletons'
# pages alone are judged. Then check-pages.py is shown to fail on pages made
# wrong on purpose (a line unmarked, a drawing gone, a script, faint text in light
# or dark mode, an image).
# Pages and screenshots: BUILD/report-pages/ (its spec.tsv names the pages relative
# to itself: a GPU machine without a browser gives AXE "-", writes the pages and
# stops, and check-pages.py judges them where a browser is). Exits 1 on any failure.
set -u
usage="usage: test-pages.sh BUILD GRADER AXE|- [emulator|trace]"
build=${1:?$usage}
grader=${2:?$usage}
axe=${3:?$usage}
measure=${4:-emulator}
case $measure in
emulator) how="Emulated on the CPU" ;;
trace) how="Measured on a GPU" ;;
*) echo "$usage" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
out=$build/report-pages
lib=$build/compile-check
rm -rf "$out" && mkdir -p "$out/files" "$out/wrong"
spec=$out/spec.tsv
: >"$spec"
failed=0
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }

# page NAME LAB LIB SOURCE: grade LIB (emulated) as SOURCE's page; the text report names it
page() {
    local name=$1 lab=$2 so=$3 src=$4 rc
    "$grader" --measure "$measure" --lib "$so" --source "$src" --html "$out/$name.html" \
        --json "$out/$name.json" "$lab" >"$out/$name.txt" 2>&1
    rc=$?
    case $rc in 0 | 1 | 4) ;; *) fail "$name: the grader exited $rc"; sed 's/^/  | /' "$out/$name.txt"; return 1 ;; esac
    grep -qF "Page: $out/$name.html" "$out/$name.txt" || fail "$name: the text report does not name its page"
    printf '%s\tpage\n' "$name.html" >>"$spec"
    printf '%s\thow\t%s\n' "$name.html" "$how" >>"$spec"
}
row() { local IFS=$'\t'; echo "$1.html	${*:2}" >>"$spec"; }
# line_of FILE FUNCTION TEXT: the first line of FILE that holds TEXT in FUNCTION's body
# (after the line that defines it: not a comment)
line_of() {
    awk -v k="void $2(" -v t="$3" 'index($0, k) && $0 !~ /^[ \t]*(\*|\/\/|\/\*)/ { in_k = 1 }
                                    in_k && index($0, t) { print NR; exit }' "$1"
}
# json_lines JSON KERNEL CHECK: the lines the grader's JSON names for a check
json_lines() {
    python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["labs"][0]["checks"]:
    if c["kernel"] == sys.argv[2] and c["check"] == sys.argv[3]:
        print(" ".join(str(l["line"]) for l in c.get("lines", [])))' "$@"
}

planted=$build/planted/src
if [ -d solutions ] && [ -d tests/planted ]; then
    src=$planted/lab3-pad-wrong-dim.cu
    if page lab3-wrong-pad lab3 "$lib/planted/lab3-pad-wrong-dim.so" "$src"; then
        n=$(line_of "$src" setRowReadColPad "out[idx] = tile[threadIdx.x][threadIdx.y]")
        row lab3-wrong-pad line "$n" far "load 32-way"
        row lab3-wrong-pad figure "$n" "32 wavefronts"
        row lab3-wrong-pad check c-setRowReadColPad-load-conflicts FAIL "the pad is not in the row length"
    fi
    src=solutions/lab3-padding/lab3.cu
    if page lab3-solution lab3 "$lib/solutions/lab3-padding/lab3.so" "$src"; then
        n=$(line_of "$src" setRowReadColPad "out[idx] = tile[threadIdx.x][threadIdx.y]")
        row lab3-solution line "$n" ok "load conflict-free"
        row lab3-solution figure "$n" "1 wavefront"
        row lab3-solution check c-setRowReadColPad-load-conflicts PASS "conflict-free"
    fi
    src=$planted/lab9-store-strided.cu
    if page lab9-store-strided lab9 "$lib/planted/lab9-store-strided.so" "$src"; then
        n=$(line_of "$src" transpose_tile "out[(size_t)ix * ny + iy] = tile[threadIdx.y][threadIdx.x]")
        row lab9-store-strided line "$n" far "global store: 32.00 sectors a request"
        row lab9-store-strided figure "$n" "32 sectors"
        row lab9-store-strided check c-transposeSmem-store-coalescing FAIL "not coalesced"
    fi
    src=$planted/lab1-no-sync.cu
    if page lab1-no-sync lab1 "$lib/planted/lab1-no-sync.so" "$src"; then
        read -r a b <<<"$(json_lines "$out/lab1-no-sync.json" setRowReadCol race)"
        [ -n "${b:-}" ] && row lab1-no-sync race "$a" "$b" || fail "lab1-no-sync: the grader names no race"
        # the race is the row store's against the column read's, with no barrier between
        [ "${a:-} ${b:-}" = "$(line_of "$src" setRowReadCol "tile[threadIdx.y][threadIdx.x] = idx") $(
            line_of "$src" setRowReadCol "out[idx] = tile[threadIdx.x][threadIdx.y]")" ] ||
            fail "lab1-no-sync: the race is lines ${a:-?} and ${b:-?}, not the tile's store and load"
    fi
    src=$planted/lab1-shared-overrun.cu
    if page lab1-overrun lab1 "$lib/planted/lab1-shared-overrun.so" "$src"; then
        n=$(grep -oE "lab1-shared-overrun\.cu:[0-9]+: a store reaches byte" "$out/lab1-overrun.txt" | head -1 | sed 's/.*cu:\([0-9]*\).*/\1/')
        [ -n "$n" ] && row lab1-overrun line "$n" far "named by" || fail "lab1-overrun: the report names no line"
    fi
    # a tree that fails for its requests, not its cost: its first line is marked off
    src=$planted/lab7-divergent-tree.cu
    if page lab7-divergent lab7 "$lib/planted/lab7-divergent-tree.so" "$src"; then
        read -r n _ <<<"$(json_lines "$out/lab7-divergent.json" reduceSmem smem-conflicts)"
        [ -n "${n:-}" ] && row lab7-divergent line "$n" near "conflict-free" ||
            fail "lab7-divergent: the grader names no line of reduceSmem's tree"
        # a check that counts global traffic whole marks the line that loads the input
        n=$(line_of "$src" reduceSmem "in[idx]")
        row lab7-divergent line "$n" ok "global load: 4.00 sectors a request"
    fi
    # a kernel the emulator cannot run: its checks not judged, a long instruction's
    # name in every message (the page must not grow wider than the phone for it)
    if page lab1-unemulated lab1 "$lib/planted/lab1-unemulated.so" "$planted/lab1-unemulated.cu" &&
        [ "$measure" = emulator ]; then # a GPU runs it
        row lab1-unemulated check c-setRowReadCol-correct N/G "not graded"
    fi
    skeleton_lib=$lib/labs/lab3-padding/lab3.so
    hostile_lib=$lib/solutions/lab3-padding/lab3.so
    hostile_src=solutions/lab3-padding/lab3.cu
else
    echo "test-pages: no solutions/ or tests/planted/ here (the student kit): the skeletons' pages alone"
    hostile_lib=$lib/labs/lab3-padding/lab3.so
    hostile_src=labs/lab3-padding/lab3.cu
    skeleton_lib=$hostile_lib
    page lab9-skeleton lab9 "$lib/labs/lab9-transpose/lab9.so" labs/lab9-transpose/lab9.cu
fi
if page lab3-skeleton lab3 "$skeleton_lib" labs/lab3-padding/lab3.cu; then
    row lab3-skeleton check c-setRowReadColDynPad-correct FAIL "launched no kernel"
    # as the text says it: the checks that wait for correct wait, they do not fail
    row lab3-skeleton check c-setRowReadColDynPad-race WAIT "launched no kernel"
fi
# A file that holds markup: its lines are the solution's (the same library), with
# a comment added at the end that would end the listing and run a script.
mkdir -p "$out/files/hostile"
{ cat "$hostile_src"; printf '// </code></pre><script>console.error("ran")</script> & <b>bold</b> \001\n'; } \
    >"$out/files/hostile/lab3.cu"
if page lab3-hostile lab3 "$hostile_lib" "$out/files/hostile/lab3.cu"; then
    row lab3-hostile text '</code></pre><script>console.error("ran")</script> & <b>bold</b>'
fi

if [ "$axe" = - ]; then # no browser here: the pages, for check-pages.py elsewhere
    echo "report pages ($measure): $(grep -c '	page$' "$spec") written to $out/, judged by: python3 tests/report/check-pages.py AXE $spec SHOTS"
    echo "report pages: $failed failure(s)"
    [ "$failed" -eq 0 ]
    exit
fi
python3 "$here/check-pages.py" "$axe" "$spec" "$out/screenshots" || failed=$((failed + 1))

# The checker fails where a page is wrong: copies of the first page, each made wrong
# one way, checked in one browser; each must have a failure of its own.
first=$out/$(head -n1 "$spec" | cut -f1)
wrongs="unmarked-lines far-as-ok no-drawings script faint-text faint-in-the-dark an-image"
: >"$out/wrong/spec.tsv"
wrong() { # NAME SED: a copy of the first page with SED applied, and the first page's rows
    sed -e "$2" "$first" >"$out/wrong/$1.html"
    cmp -s "$first" "$out/wrong/$1.html" && fail "self-test $1: the edit changed nothing"
    awk -F'\t' -v page="${first##*/}" -v as="$1.html" 'BEGIN { OFS = FS } $1 == page { $1 = as; print }' \
        "$spec" >>"$out/wrong/spec.tsv"
}
wrong unmarked-lines 's/ class="l m-[a-z]*"/ class="l"/g'
wrong far-as-ok 's/ class="l m-far"/ class="l m-ok"/g'
wrong no-drawings 's/<svg [^>]*>/<g>/g; s|</svg>|</g>|g'
wrong script 's|<main id="main">|<main id="main"><script>console.error("x")</script>|'
wrong faint-text 's|<main id="main">|<main id="main"><p style="color:#ddd">faint</p>|'
wrong faint-in-the-dark 's|<main id="main">|<main id="main"><p style="color:#2e2e2e">dark</p>|'
wrong an-image 's|<main id="main">|<main id="main"><img src="missing.png" alt="x">|'
python3 "$here/check-pages.py" "$axe" "$out/wrong/spec.tsv" "$out/wrong/shots" >"$out/wrong/out.txt" 2>&1
for w in $wrongs; do
    said=$(grep -m1 "^FAIL  $w.html: " "$out/wrong/out.txt" | cut -c7-100)
    [ -n "$said" ] && echo "ok    self-test: a page with $w fails ($said)" ||
        fail "self-test: a page with $w passes check-pages.py"
done

echo "report pages: $failed failure(s)"
[ "$failed" -eq 0 ]
