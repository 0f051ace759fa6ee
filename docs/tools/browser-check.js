// browser-check.js - evaluated in each course page by browser-check.py once
// the page and its figures have loaded: what the browser sees, as one object
// (JSON): every id, every link as the browser resolved it, every image and
// whether it decoded, and the page's width against the window's, with the
// elements that stick out past the phone's width.
(function () {
  var report = {ids: [], links: [], images: [], wide: []};
  document.querySelectorAll('[id]').forEach(function (el) { report.ids.push(el.id); });
  document.querySelectorAll('a[href]').forEach(function (a) {
    report.links.push([a.href, (a.textContent || '').trim().slice(0, 40)]);
  });
  document.querySelectorAll('img').forEach(function (img) {
    report.images.push([img.src, img.complete ? img.naturalWidth : 0]);
  });
  var viewport = document.querySelector('meta[name="viewport"]');
  report.viewport = !!viewport && /width=device-width/.test(viewport.content);
  report.innerWidth = window.innerWidth;
  report.scrollWidth = document.documentElement.scrollWidth;
  var phone = window.screen.width; /* a phone widens its layout to fit what sticks out */
  if (Math.max(report.scrollWidth, report.innerWidth) > phone + 1) {
    /* what scrolls inside its own box (a code block) does not widen the page */
    var clipped = function (el) {
      for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        var o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
      }
      return false;
    };
    document.querySelectorAll('body *').forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.right > phone + 1 && report.wide.length < 8 && !clipped(el)) {
        report.wide.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                         (el.className && typeof el.className === 'string'
                              ? '.' + el.className.split(' ')[0] : '') +
                         ' "' + (el.textContent || '').trim().slice(0, 30) + '"' +
                         ' (' + Math.round(r.right) + ' px)');
      }
    });
  }
  return report;
})()
