import { esc } from "./svg.ts";

/**
 * The shell both HTML reports share: a header, tabs and hash-routed views, so a report is a few
 * screens instead of one long scroll. Self-contained: inline CSS and JS, no network.
 */

export interface View {
  id: string;
  title: string;
  body: string;
}

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2733;background:#f6f7f9}
header{background:#1d2733;color:#fff;padding:14px 28px 0}header h1{margin:0 0 4px;font-size:20px}
header .facts{color:#c9d3de;font-size:12px;margin-bottom:10px}
.badge{display:inline-block;border-radius:4px;padding:1px 8px;margin-left:8px;font-size:12px;font-weight:600;vertical-align:middle}
.badge.sim{background:#f0c27b;color:#3a2a00}.badge.imported{background:#9cc3e6;color:#0d2b45}
nav.tabs{display:flex;gap:2px;flex-wrap:wrap}nav.tabs a{color:#c9d3de;text-decoration:none;padding:7px 14px;border-radius:6px 6px 0 0}
nav.tabs a.active{background:#f6f7f9;color:#1d2733;font-weight:600}
main{padding:18px 28px;max-width:1280px}
.view{display:none}.view.active{display:block}
section,.panel{background:#fff;border:1px solid #dde2e8;border-radius:6px;padding:14px 18px;margin:0 0 18px}
h2{font-size:17px;margin:0 0 10px}h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;font-size:12px}th,td{border-bottom:1px solid #e6e9ee;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5}th[data-sort]{cursor:pointer;user-select:none}th[data-sort]:after{content:" ⇅";color:#9aa3ad}
th.asc:after{content:" ▲";color:#1d2733}th.desc:after{content:" ▼";color:#1d2733}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.warn{background:#fff4e5;border-color:#f0c27b}.bad{color:#b3261e;font-weight:600}.ok{color:#1e7b34}.muted{color:#56616d}
.banner{border-radius:6px;padding:14px 18px;margin:0 0 18px;border:2px solid}
.banner h2{font-size:22px;margin:0 0 4px}.banner p{margin:4px 0}
.banner.pass{background:#e7f4ea;border-color:#1e7b34}.banner.regression{background:#fbe9e7;border-color:#b3261e}
.banner.inconclusive{background:#fff4e5;border-color:#d08a1d}.banner.infrastructure{background:#f3e8f7;border-color:#6a2c8a}
.banner.none{background:#eef0f3;border-color:#9aa3ad}.banner.compact{padding:8px 18px}.banner.compact h2{font-size:17px}
td.nowrap{white-space:nowrap}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:14px}
figure{margin:0;min-width:0}svg.chart{max-width:100%;height:auto;display:block}figcaption{font-size:12px;color:#56616d;margin-top:4px}
code{font-size:11px;background:#f0f2f5;padding:0 3px;border-radius:3px}
.filters{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin-bottom:10px}
.filters input[type=search]{padding:4px 8px;width:260px}
.pager{margin-top:8px;display:flex;gap:10px;align-items:center}
.trials{display:grid;grid-auto-flow:column;grid-auto-columns:minmax(260px,1fr);gap:10px;overflow-x:auto}
.trial{border:1px solid #dde2e8;border-radius:6px;padding:8px 10px;font-size:12px;background:#fbfcfd}
.trial h4{margin:0 0 4px;font-size:13px}.round{border-top:1px dashed #d3d8df;margin-top:6px;padding-top:6px}
.round ul{margin:2px 0 2px 16px;padding:0}.trial code{word-break:break-all}.blocks{color:#b3261e;font-weight:600}
.scroll{overflow-x:auto}.t-round{border-top:2px solid #dde2e8;margin-top:14px;padding-top:4px}.t-round h4{margin:10px 0 4px;font-size:13px}
table.plan,table.findings,table.calls{width:100%}table.plan td,table.findings td,table.calls td{max-width:340px;overflow-wrap:break-word}
table.plan td:first-child code{white-space:nowrap}table.plan td:nth-child(3){min-width:220px}tr.invented{background:#f3f6fb}
.tag{font-size:10px;background:#9cc3e6;color:#0d2b45;border-radius:3px;padding:0 4px}
ul.set-aside{color:#56616d;font-style:italic}
pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:360px;overflow:auto;background:#f6f7f9;border:1px solid #e6e9ee;padding:6px;font-size:11px;margin:4px 0}
`;

/** Tab switching by location.hash (`#view` or `#view/arg`); each view may register a handler for its argument. */
const ROUTER = `
var routes = {};
function show() {
  var hash = decodeURIComponent(location.hash.replace(/^#/, ""));
  var slash = hash.indexOf("/");
  var view = slash < 0 ? hash : hash.slice(0, slash);
  var arg = slash < 0 ? "" : hash.slice(slash + 1);
  if (!document.getElementById("view-" + view)) view = document.querySelector(".view").id.slice(5);
  document.querySelectorAll(".view").forEach(function (el) { el.classList.toggle("active", el.id === "view-" + view); });
  document.querySelectorAll("nav.tabs a").forEach(function (a) { a.classList.toggle("active", a.getAttribute("href") === "#" + view); });
  if (routes[view]) routes[view](arg);
}
window.addEventListener("hashchange", show);
function esc(s) { return String(s === null || s === undefined ? "" : s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
function fmt(x) { return x === null || x === undefined ? "n/a" : Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(3))); }
`;

/** JSON for a script element: no `</script>` can end it early. */
export function jsonScript(id: string, data: unknown): string {
  return `<script type="application/json" id="${esc(id)}">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>`;
}

export function page(opts: {
  title: string;
  heading: string;
  badges: string;
  facts: string;
  views: View[];
  data: string;
  script: string;
  css?: string;
}): string {
  const tabs = opts.views.map((v) => `<a href="#${esc(v.id)}">${esc(v.title)}</a>`).join("");
  const views = opts.views.map((v) => `<div class="view" id="view-${esc(v.id)}">${v.body}</div>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(opts.title)}</title><style>${CSS}${opts.css ?? ""}</style></head>
<body><header><h1>${esc(opts.heading)}${opts.badges}</h1><div class="facts">${opts.facts}</div><nav class="tabs">${tabs}</nav></header>
<main>
${views}
</main>
${opts.data}
<script>${ROUTER}${opts.script}
show();</script></body></html>
`;
}

export function figure(title: string, svg: string, caption: string): string {
  return `<figure><h3>${esc(title)}</h3>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}

/** A sortable table's header cell: `kind` says how the column's `data-v` values compare. */
export const sortable = (label: string, kind: "num" | "text") => `<th data-sort="${kind}">${esc(label)}</th>`;

/** Click-to-sort for every table with sortable headers; rows compare by each cell's data-v (numbers or text). */
export const SORT_SCRIPT = `
document.querySelectorAll("table").forEach(function (table) {
  table.querySelectorAll("th[data-sort]").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var index = Array.prototype.indexOf.call(th.parentNode.children, th);
      var asc = !th.classList.contains("asc");
      table.querySelectorAll("th").forEach(function (o) { o.classList.remove("asc", "desc"); });
      th.classList.add(asc ? "asc" : "desc");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var num = th.getAttribute("data-sort") === "num";
      rows.sort(function (a, b) {
        var x = a.cells[index].getAttribute("data-v"), y = b.cells[index].getAttribute("data-v");
        if (num) { x = x === "" ? -Infinity : Number(x); y = y === "" ? -Infinity : Number(y); return asc ? x - y : y - x; }
        return asc ? x.localeCompare(y) : y.localeCompare(x);
      });
      rows.forEach(function (r) { body.appendChild(r); });
      if (table.onsorted) table.onsorted();
    });
  });
});
`;
