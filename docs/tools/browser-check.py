#!/usr/bin/env python3
"""browser-check.py DOCS SHOTS - the course as its readers see it, in a real
browser: every page of DOCS (the rendered course) is opened in headless
chromium as on a phone 390 CSS px wide, and

  - every internal link resolves: the browser resolves the href, the page or
    file it names exists, and the #fragment is an id of that page's DOM;
  - every figure (img) loaded: the browser decoded it (naturalWidth > 0);
  - no page is wider than the phone (nothing to scroll sideways), and every
    page lays itself out for the phone's width (a viewport meta tag);

and a screenshot of each page goes to SHOTS/PAGE.png for review. Exits 1 on
any failure, naming page and element; 3 when no chromium runs (make deps
installs it).

One browser for all pages, driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: no port, no network): the phone's width is set by
Emulation.setDeviceMetricsOverride, which a plain --window-size cannot do
(headless windows are at least 500 px wide). The browser is offline:
headless, no sandbox (root in CI), no GPU, no QUIC, no network services, a
fresh profile. CHROMIUM=path picks it (default: chromium, chromium-browser,
google-chrome).
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from urllib.parse import unquote, urlparse

WIDTH, HEIGHT = 390, 844  # a phone's CSS viewport
SHOT_MAX = 6000           # px of each page's screenshot, from the top
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-pipe"]


def find_chromium():
    names = [os.environ["CHROMIUM"]] if os.environ.get("CHROMIUM") else [
        "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
    for name in names:
        if shutil.which(name):
            return shutil.which(name)
    print("browser-check: no chromium found (make deps installs it: apt-get install chromium)",
          file=sys.stderr)
    sys.exit(3)


class Browser:
    """One headless chromium, spoken to in DevTools protocol messages (JSON, each
    ended by a NUL) on its fds 3 (commands) and 4 (answers and events)."""

    def __init__(self, chrome):
        self.profile = tempfile.mkdtemp(prefix="smemlab-chromium-")
        self.log = open(os.path.join(self.profile, "chromium.log"), "w")
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()

        def pipes():  # in the child: the pipes on the fds chromium reads and writes
            os.dup2(cmd_r, 100)  # out of the way of 3 and 4 first
            os.dup2(res_w, 101)
            os.dup2(100, 3)
            os.dup2(101, 4)
        self.proc = subprocess.Popen([chrome, *FLAGS, f"--user-data-dir={self.profile}"],
                                     preexec_fn=pipes, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        os.close(cmd_r)
        os.close(res_w)
        self.pending, self.next_id, self.rest = [], 0, b""

    def _read(self):
        """Wait for more of chromium's messages and keep the whole ones."""
        chunk = os.read(self.res_r, 1 << 20)
        if not chunk:
            raise RuntimeError("chromium closed its DevTools pipe (did it start?)")
        *whole, self.rest = (self.rest + chunk).split(b"\0")
        self.pending += [json.loads(m) for m in whole]

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            for m in self.pending:
                if m.get("id") == self.next_id:
                    self.pending.remove(m)
                    if "error" in m:
                        raise RuntimeError(f"{method}: {m['error'].get('message')}")
                    return m.get("result", {})
            self._read()

    def wait(self, event, session):
        while True:
            for m in self.pending:
                if m.get("method") == event and m.get("sessionId") == session:
                    self.pending.remove(m)
                    return m
            self._read()

    def close(self):
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def visit(b, url, script, png):
    """Open url as a phone shows it; what script (browser-check.js) found, and a screenshot."""
    target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    b.send("Page.enable", session=s)
    b.send("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                   "deviceScaleFactor": 1, "mobile": True}, s)
    b.send("Page.navigate", {"url": url}, s)
    b.wait("Page.loadEventFired", s)
    found = b.send("Runtime.evaluate", {"expression": script, "returnByValue": True}, s)
    report = found["result"]["value"]
    height = b.send("Page.getLayoutMetrics", session=s)["cssContentSize"]["height"]
    shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                              "clip": {"x": 0, "y": 0, "width": WIDTH, "scale": 1,
                                                       "height": min(height, SHOT_MAX)}}, s)
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    b.send("Target.closeTarget", {"targetId": target})
    return report


def judge(docs, page, r, ids):
    """The problems of one page's report; and how many links and figures it had."""
    problems, links = [], 0
    for href, text in r["links"]:
        url = urlparse(href)
        if url.scheme != "file":
            continue  # the web: not the course's to check, and offline here
        links += 1
        target = unquote(url.path)
        name = os.path.relpath(target, docs)
        if not os.path.exists(target):
            problems.append(f"{page}: link \"{text}\" -> {name}: no such page or file")
        elif url.fragment and name in ids and unquote(url.fragment) not in ids[name]:
            problems.append(f"{page}: link \"{text}\" -> {name}#{url.fragment}: no such id on {name}")
    for src, width in r["images"]:
        if width <= 0:
            problems.append(f"{page}: figure {os.path.relpath(unquote(urlparse(src).path), docs)} "
                            "did not load")
    if not r["viewport"]:
        problems.append(f"{page}: no <meta name=\"viewport\" content=\"width=device-width\">: "
                        "a phone shows the page zoomed out")
    wide = max(r["innerWidth"], r["scrollWidth"])  # a phone widens its layout to the content
    if wide > WIDTH + 1:
        problems.append(f"{page}: {wide} px wide on a {WIDTH} px phone; too wide: "
                        f"{', '.join(r['wide'][:4]) or '?'}")
    return problems, links, len(r["images"])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: browser-check.py DOCS SHOTS")
    docs, shots = (os.path.abspath(a) for a in sys.argv[1:3])
    pages = sorted(p for p in os.listdir(docs) if p.endswith(".html"))
    if not pages:
        sys.exit(f"browser-check: no pages in {docs}: run make docs")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser-check.js")) as f:
        script = f.read()
    os.makedirs(shots, exist_ok=True)
    chrome = find_chromium()
    b = Browser(chrome)
    try:
        seen = {p: visit(b, "file://" + os.path.join(docs, p), script,
                         os.path.join(shots, p[:-5] + ".png")) for p in pages}
    except RuntimeError as e:
        print(f"browser-check: {os.path.basename(chrome)}: {e}", file=sys.stderr)
        sys.exit(3)
    finally:
        b.close()
    ids = {p: set(r["ids"]) for p, r in seen.items()}
    problems, links, figures = [], 0, 0
    for page, r in seen.items():
        p, n_links, n_figs = judge(docs, page, r, ids)
        problems += p
        links += n_links
        figures += n_figs
    for p in problems:
        print("FAIL  " + p)
    print(f"browser: {len(pages)} pages in {os.path.basename(chrome)} as on a {WIDTH} px phone: "
          f"{links} internal links, {figures} figures; screenshots in {os.path.relpath(shots)}/; "
          f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
