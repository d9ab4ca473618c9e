// Hover read-outs and zoom for the report's line charts. The page is complete without this
// script: it only reads the values each chart carries in data-series (written by the same code
// that draws the lines), so a read-out cannot disagree with the plot.
(function () {
  'use strict';
  var tip = document.createElement('div');
  tip.className = 'tip';
  tip.hidden = true;
  document.body.appendChild(tip);
  // Six significant digits: exact enough to read a value off, short enough to fit.
  function num(v) { return String(+v.toPrecision(6)); }
  // Tick labels as the Rust side writes them: 15k, 20M.
  function short(v) {
    var a = Math.abs(v), s = '';
    if (a >= 1e9) { v /= 1e9; s = 'G'; } else if (a >= 1e6) { v /= 1e6; s = 'M'; } else if (a >= 1e4) { v /= 1e3; s = 'k'; }
    return num(v) + s;
  }
  // The "nice" step (1, 2, 2.5 or 5 x 10^k) at or above r, as scale.rs picks it.
  function nice(r) {
    var m = Math.pow(10, Math.floor(Math.log10(r))), f = r / m;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * m;
  }
  function el(name, attrs, parent) {
    var e = document.createElementNS(parent.namespaceURI, name); // SVG's, from the chart
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return parent.appendChild(e);
  }
  // "Copy as Markdown" above each answer table: the table as the Markdown report writes it,
  // carried by the <template> that follows the answer.
  [].forEach.call(document.querySelectorAll('template.answer-md'), function (t) {
    var box = t.previousElementSibling && t.previousElementSibling.querySelector('.answer-text');
    if (!box) return;
    var md = t.content.textContent, b = document.createElement('button');
    b.type = 'button'; b.className = 'copy-md'; b.textContent = 'Copy as Markdown';
    function done(ok) {
      b.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(function () { b.textContent = 'Copy as Markdown'; }, 1500);
    }
    function fallback() { // file:// pages may have no clipboard API
      var a = document.body.appendChild(document.createElement('textarea')), ok = false;
      a.value = md; a.select();
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      a.remove(); done(ok);
    }
    b.addEventListener('click', function () {
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(md).then(function () { done(true); }, fallback);
      else fallback();
    });
    box.insertBefore(b, box.firstChild);
  });
  [].forEach.call(document.querySelectorAll('svg.plot[data-series]'), function (svg) {
    var d = JSON.parse(svg.getAttribute('data-series'));
    var L = d.plot[0], T = d.plot[1], W = d.plot[2], H = d.plot[3], x = d.x;
    var zoomable = x.quantity === 'time' && !x.log;
    var v0 = 0, v1 = 1; // the visible part of the drawn x range, as fractions of it
    function sx(v) { return x.log ? Math.log10(v) : v; }
    function px(v) { return L + ((sx(v) - x.lo) / (x.hi - x.lo) - v0) / (v1 - v0) * W; }
    function xText(v) { return x.quantity === 'percentile' ? num(100 - 100 / v) + '%' : num(v) + ' ' + x.unit; }
    function nearest(points, s) {
      var best = null;
      points.forEach(function (p) { if (best === null || Math.abs(sx(p[0]) - s) < Math.abs(sx(best[0]) - s)) best = p; });
      return best;
    }
    var hair = el('line', { 'class': 'xhair', y1: T, y2: T + H, visibility: 'hidden' }, svg);
    var sel = el('rect', { 'class': 'sel', y: T, height: H, width: 0, visibility: 'hidden' }, svg);
    var ticks = el('g', { 'class': 'zt' }, svg.querySelector('g.axes'));
    function local(e) {
      var p = svg.createSVGPoint();
      p.x = e.clientX; p.y = e.clientY;
      return p.matrixTransform(svg.getScreenCTM().inverse());
    }
    function hide() { tip.hidden = true; hair.setAttribute('visibility', 'hidden'); }
    var start = null;
    svg.addEventListener('mousemove', function (e) {
      var p = local(e), X = Math.min(Math.max(p.x, L), L + W);
      if (start !== null) {
        sel.setAttribute('x', Math.min(start, X));
        sel.setAttribute('width', Math.abs(X - start));
      }
      if (p.x < L || p.x > L + W || p.y < T || p.y > T + H) return hide();
      var s = x.lo + (v0 + (p.x - L) / W * (v1 - v0)) * (x.hi - x.lo), at = null;
      d.lines.forEach(function (l) {
        var q = nearest(l.points, s);
        if (q && (at === null || Math.abs(sx(q[0]) - s) < Math.abs(sx(at) - s))) at = q[0];
      });
      if (at === null) return hide();
      var text = xText(at);
      d.lines.forEach(function (l) {
        var q = nearest(l.points, sx(at));
        if (q) text += '\n' + l.name + ': ' + num(q[1]) + ' ' + d.y.unit + (q[0] !== at ? ' (at ' + xText(q[0]) + ')' : '');
      });
      tip.textContent = text;
      tip.hidden = false;
      tip.style.left = e.clientX + 14 + 'px';
      tip.style.top = e.clientY + 14 + 'px';
      hair.setAttribute('x1', px(at));
      hair.setAttribute('x2', px(at));
      hair.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseleave', function () { hide(); start = null; sel.setAttribute('visibility', 'hidden'); });
    if (!zoomable) return;
    // Shows fractions a..b of the drawn x range: the zx groups stretch, dots and labels keep
    // their shape, and the x ticks are recomputed for the visible range.
    function zoom(a, b) {
      v0 = a; v1 = b;
      var k = 1 / (b - a), z = b - a < 1;
      svg.classList.toggle('zoomed', z);
      [].forEach.call(svg.querySelectorAll('.zx'), function (g) {
        g.setAttribute('transform', z ? 'translate(' + (L - k * (L + a * W)) + ' 0) scale(' + k + ' 1)' : '');
      });
      [].forEach.call(svg.querySelectorAll('.zx circle, .zx text'), function (c) {
        var cx = +(c.getAttribute('cx') || c.getAttribute('x'));
        c.setAttribute('transform', z ? 'translate(' + cx + ' 0) scale(' + 1 / k + ' 1) translate(' + -cx + ' 0)' : '');
      });
      while (ticks.firstChild) ticks.removeChild(ticks.firstChild);
      if (!z) return;
      var lo = x.lo + a * (x.hi - x.lo), hi = x.lo + b * (x.hi - x.lo), step = nice((hi - lo) / 5);
      for (var i = Math.ceil(lo / step); i * step <= hi + step * 1e-9; i++) {
        var X = L + (i * step - lo) / (hi - lo) * W;
        el('line', { 'class': 'grid x', x1: X, x2: X, y1: T, y2: T + H }, ticks);
        el('text', { 'class': 'tick x', x: X, y: T + H + 15, 'text-anchor': 'middle' }, ticks).textContent = short(i * step);
      }
    }
    svg.classList.add('zoomable');
    svg.addEventListener('mousedown', function (e) {
      var p = local(e);
      if (e.button !== 0 || p.x < L || p.x > L + W || p.y < T || p.y > T + H) return;
      e.preventDefault(); // a drag selects a range, not the page's text
      start = p.x;
      sel.setAttribute('x', start);
      sel.setAttribute('width', 0);
      sel.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseup', function (e) {
      if (start === null) return;
      var X = Math.min(Math.max(local(e).x, L), L + W), a = Math.min(start, X), b = Math.max(start, X);
      start = null;
      sel.setAttribute('visibility', 'hidden');
      // A click is not a drag; a range under 4 px is too narrow to mean anything.
      if (b - a >= 4) zoom(v0 + (a - L) / W * (v1 - v0), v0 + (b - L) / W * (v1 - v0));
    });
    svg.addEventListener('dblclick', function () { zoom(0, 1); });
  });
})();
