/**
 * The console's one stylesheet, served at `/console/console.css` by the console itself (no
 * third-party assets, no inline style). Colours meet WCAG 2.2 AA contrast; the layout
 * reflows to one column below 700 px (checked at 1280 and 400 px wide).
 */
export const CONSOLE_CSS = `
:root { --ink: #1b1f24; --muted: #4b5563; --line: #c9ced6; --paper: #ffffff; --band: #f3f5f8;
  --accent: #0b57a4; --good: #136c2e; --bad: #a4161a; --focus: #f5a400; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--paper); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, [tabindex]:focus-visible
  { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -10000px; top: .5rem; padding: .25rem .5rem; background: var(--paper); z-index: 1; }
/* Shown over the bar, not in it: moving the bar under a pointer would drop the click it started. */
.skip:focus { left: .5rem; }
.bar { position: relative; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; padding: .5rem 1.5rem; background: var(--band); border-bottom: 1px solid var(--line); }
.brand { margin: 0; font-weight: 700; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0; list-style: none; }
nav a { text-decoration: none; padding: .25rem 0; }
nav a[aria-current="page"] { font-weight: 700; border-bottom: 3px solid var(--accent); }
.signout { margin-left: auto; display: flex; align-items: center; gap: .75rem; }
.operator { color: var(--muted); }
main { max-width: 78rem; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; }
button, .button { font: inherit; padding: .4rem .9rem; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
.signout button { background: var(--paper); color: var(--accent); }
form { margin: 0; }
.stacked, .filters { display: grid; gap: .75rem; max-width: 36rem; margin-bottom: 1rem; }
.filters { max-width: none; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); align-items: end; }
.stacked button, .filters button { justify-self: start; }
.field label { display: block; font-weight: 600; margin-bottom: .2rem; }
.field input, .field textarea, .field select { width: 100%; font: inherit; padding: .35rem .5rem; border: 1px solid #6b7280; border-radius: 4px; background: var(--paper); color: var(--ink); }
.hint { margin: .2rem 0 0; color: var(--muted); font-size: .9rem; }
.error { margin: .2rem 0 0; color: var(--bad); font-weight: 600; }
.has-error input, .has-error textarea, .has-error select { border: 2px solid var(--bad); }
.notice { padding: .75rem 1rem; border-radius: 4px; margin-bottom: 1rem; border-left: 6px solid; }
.notice p { margin: .25rem 0; }
.notice.success { background: #e9f5ec; border-color: var(--good); }
.notice.failure { background: #fbeaea; border-color: var(--bad); }
.secret { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.secret dd { margin: 0; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1.5rem; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; }
.table-wrap { overflow-x: auto; margin-bottom: 1rem; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--band); }
td { overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .85rem; font-weight: 600; border: 1px solid; }
.badge.good { color: var(--good); }
.badge.bad { color: var(--bad); }
.badge.neutral { color: var(--muted); }
.empty { color: var(--muted); }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9rem; }
pre { background: var(--band); padding: .75rem; overflow-x: auto; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5rem; }
.chart { margin: 0; }
.chart svg { max-width: 100%; height: auto; display: block; }
.chart .frame { fill: var(--band); stroke: var(--line); }
.chart .requests { fill: var(--accent); }
.chart .errors { fill: var(--bad); }
.chart figcaption { font-size: .9rem; color: var(--muted); max-width: 300px; }
@media (max-width: 700px) {
  .bar { padding: .5rem 1rem; }
  .signout { margin-left: 0; width: 100%; justify-content: space-between; }
  main { padding: 1rem; }
  .facts, .secret { grid-template-columns: 1fr; }
  .facts dd, .secret dd { margin-bottom: .5rem; }
}
`;
