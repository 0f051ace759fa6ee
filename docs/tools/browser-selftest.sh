#!/usr/bin/env bash
# browser-selftest.sh - prove that the browser check (browser-check.py) can
# fail: a small site that passes, then one page at a time with a broken link,
# a broken anchor, a figure that does not load, and a page wider than a
# phone; each must fail, naming what is wrong. Run from the kit's root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smemlab-browser-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }

# site BODY [HEAD]: a two-page site whose second page has BODY (and HEAD in
# place of the phone's viewport meta tag)
site() {
    local head=${2-'<meta name="viewport" content="width=device-width, initial-scale=1">'}
    rm -rf "$tmp/site" && mkdir -p "$tmp/site/figures"
    echo '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10" height="10"><title>t</title></svg>' \
        >"$tmp/site/figures/ok.svg"
    printf '<!DOCTYPE html><html><head>%s</head><body><h2 id="sec">A</h2><p><a href="b.html#here">b</a></p></body></html>\n' \
        '<meta name="viewport" content="width=device-width, initial-scale=1">' >"$tmp/site/a.html"
    printf '<!DOCTYPE html><html><head>%s</head><body><h2 id="here">B</h2>%s</body></html>\n' "$head" "$1" \
        >"$tmp/site/b.html"
}
# expect NAME pass|fail [TEXT]: the browser check on the site
expect() {
    python3 "$here/browser-check.py" "$tmp/site" "$tmp/shots" >"$tmp/log" 2>&1
    local rc=$? got=pass
    [ $rc = 0 ] || got=fail
    if [ $rc = 3 ]; then
        bad "$1: no browser ran"; sed 's/^/      /' "$tmp/log"
    elif [ "$got" != "$2" ]; then
        bad "$1: expected the browser check to $2, it did $got"; sed 's/^/      /' "$tmp/log"
    elif [ -n "${3:-}" ] && ! grep -qF -- "$3" "$tmp/log"; then
        bad "$1: the message lacks \"$3\""; sed 's/^/      /' "$tmp/log"
    else
        ok "$1"
    fi
}

site '<p><a href="a.html#sec">a</a> <a href="https://example.org/">web</a></p><img src="figures/ok.svg" alt="f">'
expect "a site whose links and figures resolve passes" pass "2 pages"
[ -s "$tmp/shots/a.png" ] && [ -s "$tmp/shots/b.png" ] && ok "a screenshot of every page" ||
    bad "screenshots missing in $tmp/shots"
site '<p><a href="missing.html">gone</a></p>'
expect "a link to a page that does not exist fails" fail 'b.html: link "gone" -> missing.html: no such page'
site '<p><a href="a.html#nosuch">nowhere</a></p>'
expect "a link to an id the page does not have fails" fail 'a.html#nosuch: no such id on a.html'
site '<img src="figures/missing.svg" alt="f">'
expect "a figure that does not load fails" fail "figure figures/missing.svg did not load"
site '<div id="table" style="width: 800px">wide</div>'
expect "a page wider than a phone fails" fail "px wide on a 390 px phone; too wide: div#table"
site '<p>Text.</p>' ''
expect "a page with no viewport meta tag fails" fail "b.html: no <meta name=\"viewport\""

echo "browser self-test: $passed passed, $failed failed"
[ "$failed" = 0 ]
