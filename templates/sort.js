/* Click a column header of a table marked "sortable" to sort its rows (again to reverse).
   A cell is keyed by its first line (its text up to a <br>: "0.743" of "0.743<br>[0.736, 0.766]",
   "gbm" of a swatch and a name); numbers are read with minus signs, thin spaces and % understood;
   cells without a number (n/a) go last. Static code: no report data is inserted here. */
document.querySelectorAll("table.sortable").forEach(function (table) {
  var body = table.tBodies[0];
  if (!body) { return; }
  function key(row, i) {
    var text = "";
    for (var n = row.cells[i] ? row.cells[i].firstChild : null; n && n.nodeName !== "BR"; n = n.nextSibling) {
      text += n.textContent;
    }
    var t = text.replace(/\s/g, "").replace(/\u2212/g, "-").replace(/[%+]/g, "");
    var num = /^-?[0-9.]+(e-?[0-9]+)?$/i.test(t) ? parseFloat(t) : NaN;
    return { num: num, text: text.trim().toLowerCase() };
  }
  Array.prototype.forEach.call(table.tHead ? table.tHead.rows[0].cells : [], function (th, i) {
    th.classList.add("sort-key");
    th.title = "Sort by this column";
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(th.parentNode.cells, function (c) { c.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a, i), y = key(b, i);
        var xn = !isNaN(x.num), yn = !isNaN(y.num);
        if (xn && yn) { return dir * (x.num - y.num); }
        if (xn !== yn) { return xn ? -1 : 1; }
        return dir * x.text.localeCompare(y.text);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
