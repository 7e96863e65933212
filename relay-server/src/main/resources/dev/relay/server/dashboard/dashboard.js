// Relay dashboard: draws the charts from the numbers the server put in each figure's
// data-points ("seconds,value seconds,value ..."), and asks before destructive actions.
// Plain script served from the jar; it fetches nothing.
"use strict";

(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var WIDTH = 360;
  var HEIGHT = 120;
  var PAD = 28;

  function el(name, attrs) {
    var e = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }

  function draw(figure) {
    var points = (figure.getAttribute("data-points") || "").trim().split(/\s+/)
      .filter(function (p) { return p.length > 0; })
      .map(function (p) { var xy = p.split(","); return [parseFloat(xy[0]), parseFloat(xy[1])]; })
      .filter(function (p) { return isFinite(p[0]) && isFinite(p[1]); });
    var svg = el("svg", { width: WIDTH, height: HEIGHT, role: "img" });
    if (points.length >= 2) {
      var xMin = points[0][0], xMax = points[points.length - 1][0];
      var yMax = Math.max.apply(null, points.map(function (p) { return p[1]; }).concat([1]));
      var xSpan = Math.max(1e-9, xMax - xMin);
      var coords = points.map(function (p) {
        var x = PAD + (p[0] - xMin) / xSpan * (WIDTH - PAD - 4);
        var y = HEIGHT - 14 - p[1] / yMax * (HEIGHT - 24);
        return x.toFixed(1) + "," + y.toFixed(1);
      });
      svg.appendChild(el("polyline", { points: coords.join(" ") }));
      var top = el("text", { x: 2, y: 12 });
      top.textContent = String(Math.round(yMax * 10) / 10);
      svg.appendChild(top);
      var left = el("text", { x: PAD, y: HEIGHT - 2 });
      left.textContent = Math.round(xMin) + " s";
      svg.appendChild(left);
      var right = el("text", { x: WIDTH - 30, y: HEIGHT - 2 });
      right.textContent = "now";
      svg.appendChild(right);
    }
    figure.insertBefore(svg, figure.firstChild);
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("figure.chart"), draw);
    Array.prototype.forEach.call(document.querySelectorAll("form[data-confirm]"), function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.getAttribute("data-confirm"))) {
          event.preventDefault();
        }
      });
    });
  });
})();
