#!/usr/bin/env bash
# selftest.sh NVCC PANDOC-COMMAND... - prove that check-docs can fail.
#
# Feeds the docs' own pipeline small pages that must pass and pages that
# must fail: a pandoc warning, a broken anchor to another page, a link to a
# page that does not exist, a broken anchor on the same page, a missing
# image, a number or check name other than the grader's; then a compilable
# block that compiles and one that does not; a lab table's section on its
# page and one missing from it.
# PANDOC-COMMAND is the HTML command of docs.mk (without the page list), so
# the test runs exactly what `make docs` runs. Run from the kit's root.
set -u
nvcc=${1:?usage: selftest.sh NVCC PANDOC-COMMAND...}
shift
[ $# -gt 0 ] || { echo "usage: selftest.sh NVCC PANDOC-COMMAND..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-docs-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/out/figures" "$tmp/code"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }

# render PAGE: run the docs' pandoc command on $tmp/src/PAGE.md
render() {
    rm -f "$tmp"/code/*.cu
    "$@" -M codedir="$tmp/code" "$tmp/src/$page.md" -o "$tmp/out/$page.html" >"$tmp/log" 2>&1
}
# expect NAME STATUS(pass|fail) [TEXT]: render $page, compare
expect() {
    local name=$1 want=$2 text=${3:-}
    shift 3
    if render "$@"; then got=pass; else got=fail; fi
    if [ "$got" != "$want" ]; then
        bad "$name: expected the docs build to $want, it did $got"; sed 's/^/      /' "$tmp/log"
    elif [ -n "$text" ] && ! grep -qF -- "$text" "$tmp/log"; then
        bad "$name: the message lacks \"$text\""; sed 's/^/      /' "$tmp/log"
    else
        ok "$name"
    fi
}

cat >"$tmp/src/other.md" <<'MD'
---
title: Other
---
## A section {#sec}
Text.
MD
echo '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><title>t</title></svg>' >"$tmp/out/figures/ok.svg"

page() { # page NAME BODY: a page with a title and BODY
    page=$1
    printf -- '---\ntitle: Test\n---\n## Here {#here}\n\n%s\n' "$2" >"$tmp/src/$page.md"
}

page good 'See [the section](other.md#sec), [that page](other.html), [here](#here), and:

![A figure](figures/ok.svg)'
expect "a page whose links all resolve builds" pass "" "$@"
grep -q 'href="other.html#sec"' "$tmp/out/good.html" && ok "links to page.md#anchor become page.html#anchor" \
    || bad "links to page.md#anchor were not rewritten to .html"

page warn '[a][x]

[x]: one.html
[x]: two.html'
expect "a pandoc warning fails the build" fail "Duplicate link reference" "$@"

page anchor 'See [a missing section](other.html#nosuch).'
expect "a broken anchor on another page fails" fail 'no id "nosuch"' "$@"

page nopage 'See [a missing page](missing.html#sec).'
expect "a link to a missing page fails" fail "no page" "$@"

page local 'See [nothing](#nowhere).'
expect "a broken anchor on the same page fails" fail 'no id "nowhere"' "$@"

page image '![A missing figure](figures/missing.svg)'
expect "a missing image fails" fail "figures/missing.svg" "$@"

# Numbers and check names held to the grader's facts (facts.lua): a page that
# agrees builds, one that states another number or an unknown check fails.
printf 'lab9.points 21\nlab9.check.correct 1\n' >"$tmp/facts.txt"
page facts 'Worth [21]{.fact key="lab9.points"} points; [correct]{.check lab="lab9"} first.'
expect "a page whose numbers are the grader's builds" pass "" "$@" -M facts="$tmp/facts.txt"
grep -q 'Worth 21 points; correct first' "$tmp/out/facts.html" && ok "a fact is plain text in the page" \
    || bad "a fact was not rendered as plain text"
# a course file (course_facts): the page checked against the kit's numbers shows the
# course's, "0" for a check it leaves out, and the check "(not graded in this course)"
printf 'lab9.points 21\nlab9.check.correct 1\nlab9.speed 2\nlab9.check.speed 1\n' >"$tmp/facts.txt"
printf 'lab9.points 19\nlab9.check.correct 1\n' >"$tmp/course-facts.txt"
page facts 'Worth [21]{.fact key="lab9.points"} points; [speed]{.check lab="lab9"} [2]{.fact key="lab9.speed"}.'
expect "a page under a course file builds" pass "" "$@" -M facts="$tmp/facts.txt" -M course_facts="$tmp/course-facts.txt"
grep -q 'Worth 19 points; speed (not graded in this course) 0' "$tmp/out/facts.html" &&
    ok "a course file's numbers are shown: 19 for 21, 0 and '(not graded in this course)' for a check left out" ||
    bad "course facts: $(grep -o 'Worth[^<]*' "$tmp/out/facts.html")"
printf 'lab9.points 21\nlab9.check.correct 1\n' >"$tmp/facts.txt"
page facts 'Worth [14]{.fact key="lab9.points"} points.'
expect "a page that states another number than the grader fails" fail \
    'says "14" for lab9.points; the grader says "21"' "$@" -M facts="$tmp/facts.txt"
page facts 'The [correctness]{.check lab="lab9"} check.'
expect "a page that names a check the lab does not have fails" fail \
    '"correctness" is not a check of lab9' "$@" -M facts="$tmp/facts.txt"

# Compilable blocks: one good, one with an error, through extract-code.lua
# and compile-blocks.sh, as check-docs does.
page code '```{.cuda .compile}
#include "smemlab.h"
__global__ void fine(int *out) { out[threadIdx.x] = threadIdx.x; }
```'
if render "$@" && ls "$tmp"/code/code.block1.cu >/dev/null 2>&1; then
    if bash "$here/compile-blocks.sh" "$nvcc" "$tmp/code" >"$tmp/log" 2>&1; then
        ok "a compilable block that compiles passes"
    else
        bad "a correct compilable block failed to compile"; sed 's/^/      /' "$tmp/log"
    fi
else
    bad "the compilable block was not extracted"; sed 's/^/      /' "$tmp/log"
fi

page code '```{.cuda .compile}
#include "smemlab.h"
__global__ void broken(int *out) { out[threadIdx.x] = undeclared_name; }
```'
if render "$@"; then
    if bash "$here/compile-blocks.sh" "$nvcc" "$tmp/code" >"$tmp/log" 2>&1; then
        bad "a compilable block with an error passed"
    elif grep -q "code.md, compilable block 1" "$tmp/log"; then
        ok "a compilable block with an error fails, naming its page and block"
    else
        bad "the compiler's message does not name the page and block"; sed 's/^/      /' "$tmp/log"
    fi
else
    bad "the page with a bad block did not render"; sed 's/^/      /' "$tmp/log"
fi

# A lab table's section: on its page it passes, missing it fails, naming the table's line.
mkdir -p "$tmp/kit/grader/labs" "$tmp/kit/docs"
printf '# Lab 1\n\n## Rows {#rows}\n' >"$tmp/kit/docs/lab1.md"
printf '    {.name = "setRowReadRow", .section = "rows"},\n' >"$tmp/kit/grader/labs/lab1.c"
python3 "$here/check-sections.py" "$tmp/kit" >"$tmp/log" 2>&1 && ok "a table's section on its page passes" ||
    { bad "a table's section on its page failed"; sed 's/^/      /' "$tmp/log"; }
printf '    {.name = "setRowReadCol", .section = "columns"},\n' >>"$tmp/kit/grader/labs/lab1.c"
if python3 "$here/check-sections.py" "$tmp/kit" >"$tmp/log" 2>&1; then
    bad "a table's section missing from its page passed"
elif grep -qF "lab1.c:2: section 'columns' is not on" "$tmp/log"; then
    ok "a table's section missing from its page fails, naming the table's line"
else
    bad "the missing section's message does not name the table's line"; sed 's/^/      /' "$tmp/log"
fi

echo "docs self-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
