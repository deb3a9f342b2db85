/*
 * The dashboard's two static files, served from memory below `<basePath>/assets/`. No build
 * step and no third-party script: the pages work without JavaScript, and the script only adds
 * the copy buttons.
 */

export const STYLESHEET = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4d5661; --line: #d0d7de; --accent: #0b5cad; --bad: #a4161a; --good: #17663a; --warn: #7a4d00; --warn-fill: #bf8700; --violet: #6f42c1; --bg: #f6f8fa; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus, textarea:focus { outline: 3px solid #f2b600; outline-offset: 1px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 1; }
header { background: #1b1f24; color: #fff; padding: 8px 20px; display: flex; gap: 24px; align-items: center; flex-wrap: wrap; }
header .brand { font-weight: 700; }
header nav ul { list-style: none; display: flex; gap: 16px; margin: 0; padding: 0; flex-wrap: wrap; }
header a { color: #fff; } header a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
main { padding: 16px 20px 40px; max-width: 1400px; }
h1 { font-size: 1.5rem; margin: 8px 0 16px; } h2 { font-size: 1.2rem; margin: 24px 0 8px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: var(--bg); border: 1px solid var(--line); padding: 10px; overflow: auto; max-height: 420px; white-space: pre-wrap; word-break: break-word; }
form.filters { display: flex; flex-wrap: wrap; gap: 10px 14px; align-items: flex-end; background: var(--bg); padding: 10px; border: 1px solid var(--line); }
form.filters .field, form.stack label { display: flex; flex-direction: column; font-size: 0.85rem; gap: 2px; }
form.filters .field label { font-weight: 600; } form.stack label { font-weight: 600; }
form.stack label.inline { flex-direction: row; font-weight: 400; gap: 6px; align-items: center; }
form.stack { display: grid; gap: 12px; max-width: 760px; }
fieldset { border: 1px solid var(--line); padding: 8px 12px; } legend { font-weight: 600; }
fieldset .choices { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 2px 12px; }
fieldset .choices label { flex-direction: row; font-weight: 400; gap: 6px; align-items: center; }
input, select, textarea { font: inherit; padding: 4px 6px; border: 1px solid #8c959f; border-radius: 3px; }
button, .button { font: inherit; padding: 5px 12px; border-radius: 3px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
.actions { display: flex; gap: 10px; flex-wrap: wrap; align-items: center; margin: 12px 0; }
.actions form { margin: 0; }
.status { font-weight: 600; white-space: nowrap; }
.status-delivered, .status-completed, .status-done, .status-active, .status-2xx { color: var(--good); }
.status-finally_failed, .status-dead, .status-disabled, .status-5xx, .status-4xx, .status-failed { color: var(--bad); }
.status-retrying, .status-processing, .status-pending, .status-none { color: var(--warn); }
.notice { border-left: 5px solid var(--good); background: #eef8f1; padding: 8px 12px; margin: 8px 0 16px; }
.problem { border-left: 5px solid var(--bad); background: #fdf0f0; padding: 8px 12px; margin: 8px 0 16px; }
.secret { font-size: 1.05rem; background: #fff8e1; border: 2px dashed var(--warn); padding: 8px 12px; display: inline-block; user-select: all; }
.muted { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; word-break: break-all; }
.pager { display: flex; gap: 14px; align-items: center; margin: 10px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); padding: 10px 12px; } .card .count { font-size: 1.6rem; font-weight: 700; display: block; } .card .muted { display: block; font-size: 0.8rem; }
.status-stale { color: var(--muted); }
section.attempt { border: 1px solid var(--line); padding: 4px 14px 10px; margin: 12px 0; }
.range-switch { display: flex; gap: 14px; margin: 0 0 8px; } .range-switch a[aria-current] { font-weight: 700; color: var(--ink); text-decoration: none; }
figure.chart { margin: 8px 0 16px; max-width: 900px; }
.chart-svg { width: 100%; height: auto; display: block; }
.chart-svg .grid { stroke: var(--line); stroke-width: 1; }
.chart-svg .axis { fill: var(--muted); font-size: 11px; }
.chart-svg a:focus rect, .chart-svg a:hover rect { stroke: var(--ink); stroke-width: 2; }
.chart-svg .mark { stroke: var(--ink); stroke-width: 1.5; }
.chart-svg .planned { fill: none; stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 3 2; }
.chart-svg .now { stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 4 3; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 0; margin: 4px 0; font-size: 0.9rem; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -1px; }
.bar-delivered, .bar-handled, .bar-ok { fill: var(--good); background: var(--good); }
.bar-retrying, .bar-pending { fill: var(--warn-fill); background: var(--warn-fill); }
.bar-finally_failed, .bar-failed { fill: var(--bad); background: var(--bad); }
.bar-stale { fill: var(--muted); background: var(--muted); }
.bar-quarantined { fill: var(--violet); background: var(--violet); }
.swatch-planned { border: 2px dashed var(--muted); } .timeline .chart-svg { max-width: 900px; }
table.registrations td.registration, table.registrations td.headers { overflow-wrap: anywhere; } table.registrations td.registration { min-width: 14rem; } .spark-box { white-space: nowrap; } .spark-scale { font-size: 0.75rem; vertical-align: top; } .spark { width: 120px; height: 24px; vertical-align: middle; } .health .spark { width: 288px; height: 48px; } .spark .bar-ok { fill: var(--accent); background: var(--accent); }
details > summary { cursor: pointer; color: var(--accent); }
@media (prefers-color-scheme: dark) {
  :root { color-scheme: dark; --ink: #e6edf3; --muted: #9ea7b3; --line: #3d444d; --accent: #6cb6ff; --bad: #ff7b72; --good: #56d364; --warn: #e3b341; --warn-fill: #d29922; --violet: #bc8cff; --bg: #161b22; }
  body { background: #0d1117; }
  .notice { background: #12261a; } .problem { background: #2d1517; } .secret { background: #2b2111; }
  button, .button { color: #0d1117; } button.secondary, .button.secondary { background: #0d1117; color: var(--accent); }
  .skip:focus { background: #0d1117; }
}
@media print {
  header, .skip, .range-switch, form.filters, .actions, .pager a { display: none; }
  body { background: #fff; color: #000; }
  figure.chart, table { break-inside: avoid; }
  .chart-svg rect, .swatch { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  details > table, details table { display: table; }
}
`;

export const SCRIPT = `
// Progressive enhancement only: every page works without this file.
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var target = document.getElementById(button.getAttribute('data-copy'));
  if (!target || !navigator.clipboard) return;
  button.hidden = false;
  var status = document.getElementById(button.getAttribute('data-copy') + '-status');
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(target.textContent).then(function () {
      if (status) status.textContent = 'Copied to the clipboard.';
    }, function () {
      if (status) status.textContent = 'Copying failed; select the text instead.';
    });
  });
});
`;

/** A small icon, so that browsers find one below the base path instead of asking the host app. */
export const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5cad"/><path d="M3 8h4l2-4 2 8 2-4" stroke="#fff" stroke-width="1.6" fill="none"/></svg>';
