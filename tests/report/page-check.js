// page-check.js - what check-pages.py asks of a report page, evaluated in the
// page (headless chromium): its links, scripts, figures, marked lines and
// checks, as plain data for Python to judge.
(() => {
  const text = (e) => (e ? e.textContent.replace(/\s+/g, " ").trim() : "");
  const hrefs = (e) => Array.from(e.querySelectorAll("a[href]")).map((a) => a.getAttribute("href"));
  const lines = {};
  for (const l of document.querySelectorAll(".src .l")) {
    const marks = Array.from(l.classList).filter((c) => c.startsWith("m-"));
    const ann = l.nextElementSibling && l.nextElementSibling.classList.contains("ann")
      ? l.nextElementSibling : null;
    if (marks.length || ann)
      lines[l.id] = {marks, ann: text(ann), links: ann ? hrefs(ann) : []};
  }
  const figures = {};
  for (const f of document.querySelectorAll("figure[id]")) {
    const svgs = Array.from(f.querySelectorAll("svg")).map((s) => {
      const r = s.getBoundingClientRect();
      return {w: r.width, h: r.height, title: !!s.querySelector("title"),
              labelled: (s.getAttribute("aria-labelledby") || "").split(" ")
                .every((id) => id && document.getElementById(id)),
              text: text(s)};
    });
    figures[f.id] = {svgs, caption: text(f.querySelector("figcaption")), links: hrefs(f)};
  }
  const checks = {};
  for (const c of document.querySelectorAll(".check[id]"))
    checks[c.id] = {classes: Array.from(c.classList), verdict: text(c.querySelector("h3 .verdict")),
                    text: text(c), links: hrefs(c)};
  const ids = Array.from(document.querySelectorAll("[id]")).map((e) => e.id);
  const wide = [];
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 && e.closest(".skip") === null)
      wide.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : e.className ? "." + e.className : ""));
  }
  return {
    ids, dupIds: ids.filter((id, i) => ids.indexOf(id) !== i),
    links: hrefs(document), scripts: document.scripts.length,
    external: Array.from(document.querySelectorAll("[src],link[href]")).map((e) =>
      e.getAttribute("src") || e.getAttribute("href")),
    images: Array.from(document.images).map((i) => [i.src, i.naturalWidth]),
    lines, figures, checks, how: text(document.getElementById("how")),
    listing: text(document.querySelector(".src")),
    viewport: !!document.querySelector('meta[name="viewport"][content*="width=device-width"]'),
    innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth,
    wide: wide.slice(0, 4),
  };
})()
