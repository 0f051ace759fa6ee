#!/usr/bin/env python3
"""check-pages.py AXE SPEC SHOTS - the grader's report pages as a student sees
them, in headless chromium (the course's browser, docs/tools/browser-check.py),
as on a phone 390 CSS px wide.

SPEC is a file of rows, tab-separated, '#' a comment; each names a page (a path
relative to SPEC's folder, or absolute) and what must hold on it:

  PAGE  page                          the generic rules below (every page of SPEC)
  PAGE  line   N  CLASS  TEXT         line N is marked CLASS (ok, near, far, info) and
                                      its annotation says TEXT
  PAGE  figure N  TEXT                line N's annotation links to a drawing whose SVG
                                      says TEXT
  PAGE  check  ID  VERDICT  TEXT      the check #ID (c-KERNEL-CHECK) has VERDICT (PASS,
                                      FAIL, ...) and says TEXT
  PAGE  race   N  M                   lines N and M are marked, each linking to the other
  PAGE  how    TEXT                   the page says how it was measured: TEXT
  PAGE  text   TEXT                   the listing shows TEXT, as text

and on every page: every failing check's lines are marked (not "as expected"),
every line a check links to is marked, every internal link resolves, every
figure's SVG is drawn (a size, a title, its aria labels resolve), no image,
script or outside resource, no id twice, no console error or exception, nothing
wider than the phone, and axe-core (AXE: its axe.min.js) finds no serious or
critical violation in light nor in dark mode. A screenshot of each page goes to
SHOTS/NAME.png. Exits 1 on any failure, naming page and rule; 3 when chromium or
axe-core is missing (make deps installs both).
"""
import base64
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "browser_check", os.path.join(HERE, "..", "..", "docs", "tools", "browser-check.py"))
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)

WIDTH, HEIGHT = bc.WIDTH, bc.HEIGHT
SHOT_MAX = 12000
SERIOUS = ("serious", "critical")


def evaluate(b, s, expression, await_promise=False):
    r = b.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                    "awaitPromise": await_promise}, s)
    if "exceptionDetails" in r:
        raise RuntimeError(f"script failed: {r['exceptionDetails'].get('text')} "
                           f"{r['exceptionDetails'].get('exception', {}).get('description', '')}")
    return r["result"].get("value")


def console_errors(b, s):
    """The console errors and exceptions chromium has told of for session s."""
    found = []
    for m in list(b.pending):
        if m.get("sessionId") != s:
            continue
        p = m.get("params", {})
        if m.get("method") == "Runtime.exceptionThrown":
            found.append("exception: " + p.get("exceptionDetails", {}).get("text", "?"))
        elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            found.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                      for a in p.get("args", [])))
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            found.append("log: " + p["entry"].get("text", "?"))
        else:
            continue
        b.pending.remove(m)
    return found


def axe_run(b, s, axe_source, only=None):
    """axe-core's violations of the page as it is shown now (only: those rules alone)."""
    evaluate(b, s, axe_source)
    run_only = f", runOnly: {json.dumps(only)}" if only else ""
    return evaluate(b, s, "axe.run(document, {resultTypes: ['violations']" + run_only + "}).then(r => "
                    "r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, "
                    "nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))", True)


def visit(b, path, script, axe_source, png):
    """Open the page as a phone shows it: what script found, its console errors, axe's
    violations in light and dark mode; a screenshot."""
    target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        b.send(domain + ".enable", session=s)
    b.send("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                   "deviceScaleFactor": 1, "mobile": True}, s)
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(path)}, s)
    b.wait("Page.loadEventFired", s)
    found = evaluate(b, s, script)
    errors = console_errors(b, s)
    height = b.send("Page.getLayoutMetrics", session=s)["cssContentSize"]["height"]
    shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                              "clip": {"x": 0, "y": 0, "width": WIDTH, "scale": 1,
                                                       "height": min(height, SHOT_MAX)}}, s)
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    axe = {"light": axe_run(b, s, axe_source)}
    b.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                         "value": "dark"}]}, s)
    axe["dark"] = axe_run(b, s, axe_source, ["color-contrast"])  # the rest is the same in the dark
    errors += console_errors(b, s)
    b.send("Target.closeTarget", {"targetId": target})
    return found, errors, axe


def generic(name, r, errors, axe):
    """The rules every page keeps."""
    bad = []
    ids = set(r["ids"])
    for href in r["links"]:
        if href.startswith("#") and href[1:] not in ids:
            bad.append(f"{name}: link {href} leads nowhere")
        elif not href.startswith("#"):
            bad.append(f"{name}: link {href} leaves the page (a page is self-contained)")
    for cid, c in r["checks"].items():
        marked = [h for h in c["links"] if h.startswith("#L")]
        for h in marked:
            line = r["lines"].get(h[1:])
            if not line or not line["marks"]:
                bad.append(f"{name}: {cid} names {h}, which is not marked")
        off = ("m-near", "m-far")
        if "fail" in c["classes"] and marked and not any(
                set(r["lines"].get(h[1:], {}).get("marks", [])) & set(off) for h in marked):
            bad.append(f"{name}: {cid} fails, but none of its lines is marked as off")
    for fid, f in r["figures"].items():
        if not f["svgs"]:
            bad.append(f"{name}: figure #{fid} has no drawing")
        for k, svg in enumerate(f["svgs"]):
            if svg["w"] <= 0 or svg["h"] <= 0 or not svg["title"] or not svg["labelled"]:
                bad.append(f"{name}: figure #{fid}'s drawing {k} is not drawn, or has no title "
                           f"its labels name ({svg['w']:.0f} x {svg['h']:.0f} px)")
    for src, width in r["images"]:
        bad.append(f"{name}: an image ({src}): a page draws inline, it loads nothing")
    if r["scripts"]:
        bad.append(f"{name}: {r['scripts']} script element(s): a page has none")
    for e in r["external"]:
        bad.append(f"{name}: loads {e}: a page loads nothing")
    for i in sorted(set(r["dupIds"])):
        bad.append(f"{name}: id {i} twice")
    for e in errors:
        bad.append(f"{name}: {e}")
    if not r["viewport"]:
        bad.append(f"{name}: no viewport meta tag: a phone shows it zoomed out")
    wide = max(r["innerWidth"], r["scrollWidth"])
    if wide > WIDTH + 1:
        bad.append(f"{name}: {wide} px wide on a {WIDTH} px phone: {', '.join(r['wide']) or '?'}")
    for mode, found in axe.items():
        for v in found:
            if v["impact"] in SERIOUS:
                bad.append(f"{name}: axe ({mode} mode): {v['impact']} {v['id']}: {v['help']} "
                           f"({'; '.join(v['nodes'])})")
    return bad


def expected(name, r, rows):
    """The rows SPEC gives for this page."""
    bad = []
    for row in rows:
        what, args = row[0], row[1:]
        if what == "line":
            n, cls, want = args
            line = r["lines"].get("L" + n)
            if not line or ("m-" + cls) not in line["marks"]:
                bad.append(f"{name}: line {n} is not marked {cls} "
                           f"({line['marks'] if line else 'not marked'})")
            elif want not in line["ann"]:
                bad.append(f"{name}: line {n} does not say '{want}': {line['ann'][:200]}")
        elif what == "figure":
            n, want = args
            line = r["lines"].get("L" + n, {"links": []})
            figs = [h[1:] for h in line["links"] if h[1:] in r["figures"]]
            if not figs:
                bad.append(f"{name}: line {n} links to no drawing")
            elif not any(want in svg["text"] for f in figs for svg in r["figures"][f]["svgs"]):
                bad.append(f"{name}: line {n}'s drawing does not say '{want}'")
            elif not any(f"#L{n}" in r["figures"][f]["links"] for f in figs):
                bad.append(f"{name}: line {n}'s drawing does not link back to it")
        elif what == "check":
            cid, verdict, want = args
            c = r["checks"].get(cid)
            if not c:
                bad.append(f"{name}: no check #{cid}")
            elif c["verdict"] != verdict or want not in c["text"]:
                bad.append(f"{name}: #{cid} is {c['verdict']} (want {verdict}) or does not say "
                           f"'{want}'")
        elif what == "race":
            a, b2 = args
            for x, y in ((a, b2), (b2, a)):
                line = r["lines"].get("L" + x)
                if not line or "m-far" not in line["marks"] or f"#L{y}" not in line["links"]:
                    bad.append(f"{name}: line {x} is not marked as racing with line {y}")
        elif what == "how":
            if args[0] not in r["how"]:
                bad.append(f"{name}: says '{r['how']}', not '{args[0]}'")
        elif what == "text":
            if args[0] not in r["listing"]:
                bad.append(f"{name}: the listing does not show '{args[0]}'")
        elif what != "page":
            bad.append(f"SPEC: unknown row '{what}'")
    return bad


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check-pages.py AXE SPEC SHOTS")
    axe_path, spec_path, shots = sys.argv[1:4]
    if not os.path.isfile(axe_path):
        print(f"check-pages: no axe-core at {axe_path}: run make deps", file=sys.stderr)
        sys.exit(3)
    rows = {}
    with open(spec_path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                cols = line.rstrip("\n").split("\t")
                page = os.path.join(os.path.dirname(os.path.abspath(spec_path)), cols[0])
                rows.setdefault(page, []).append(cols[1:])
    with open(os.path.join(HERE, "page-check.js")) as f:
        script = f.read()
    with open(axe_path) as f:
        axe_source = f.read()
    os.makedirs(shots, exist_ok=True)
    b = bc.Browser(bc.find_chromium())
    problems, n_rows = [], 0
    try:
        for page, want in rows.items():
            name = os.path.basename(page)
            if not os.path.isfile(page):
                problems.append(f"{name}: no such page ({page})")
                continue
            r, errors, axe = visit(b, page, script, axe_source,
                                   os.path.join(shots, name[:-5] + ".png"))
            problems += generic(name, r, errors, axe) + expected(name, r, want)
            n_rows += len(want)
    except RuntimeError as e:
        print(f"check-pages: chromium: {e}", file=sys.stderr)
        sys.exit(3)
    finally:
        b.close()
    for p in problems:
        print("FAIL  " + p)
    try:
        with open(os.path.join(os.path.dirname(axe_path), "package.json")) as f:
            version = json.load(f).get("version", "?")
    except (OSError, ValueError):
        version = "?"
    print(f"report pages: {len(rows)} in headless chromium as on a {WIDTH} px phone, light and "
          f"dark, axe-core {version}: "
          f"{n_rows} rows of {os.path.basename(spec_path)}; screenshots in {shots}/; "
          f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
