// The page's only stylesheet and script, served by us from these strings (the policy allows no
// inline style or script, and no other origin).

const css = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --fg: #1b1f24; --muted: #57606a; --card: #ffffff; --line: #d0d7de;
  --accent: #0b5cad; --accent-fg: #ffffff; --danger: #b42318; --ok-bg: #dafbe1; --ok-fg: #116329;
  --warn-bg: #fff1c2; --warn-fg: #6b4a00; --off-bg: #eaeef2; --off-fg: #3d444d; --focus: #f59e0b;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1419; --fg: #e6edf3; --muted: #9da7b3; --card: #161b22; --line: #30363d;
    --accent: #4493f8; --accent-fg: #0b0f14; --danger: #ff7b72; --ok-bg: #12361f; --ok-fg: #7ee2a8;
    --warn-bg: #3d2e00; --warn-fg: #f2cc60; --off-bg: #262c36; --off-fg: #c9d1d9;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
}
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: .5rem; background: var(--card); padding: .5rem 1rem; z-index: 1; }
.bar {
  display: flex; align-items: center; justify-content: space-between; gap: 1rem; flex-wrap: wrap;
  padding: .75rem max(1rem, calc((100% - 70rem) / 2)); background: var(--card); border-bottom: 1px solid var(--line);
}
.brand { font-weight: 700; color: var(--fg); text-decoration: none; letter-spacing: .01em; }
.signout { display: flex; align-items: center; gap: .75rem; margin: 0; }
.who { color: var(--muted); overflow-wrap: anywhere; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1rem 4rem; }
main.narrow { max-width: 28rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; }
p { margin: .5rem 0 1rem; }
.muted { color: var(--muted); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem; }
label { display: block; font-weight: 600; margin: 0 0 .3rem; }
.field { margin: 0 0 1rem; }
.hint { display: block; color: var(--muted); font-size: .9rem; margin: -.2rem 0 .35rem; }
input[type=email], input[type=password], input[type=text], input[type=url], select, textarea {
  width: 100%; font: inherit; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 6px; padding: .55rem .7rem;
}
.row { display: flex; gap: 1rem; flex-wrap: wrap; align-items: flex-end; }
.row .field { flex: 1 1 14rem; }
.row .field.short { flex: 0 1 12rem; }
button, .button {
  display: inline-block; font: inherit; font-weight: 600; cursor: pointer; text-decoration: none;
  border-radius: 6px; padding: .55rem 1rem; border: 1px solid var(--accent); white-space: nowrap;
  background: var(--accent); color: var(--accent-fg);
}
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
button.link { background: none; border: 0; padding: 0; color: var(--accent); text-decoration: underline; font-weight: 400; }
button.small, .button.small { padding: .25rem .6rem; font-size: .9rem; }
.actions { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.actions form { margin: 0; }
td .actions { flex-wrap: nowrap; }
.notice, .error { border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; border: 1px solid; }
.notice { background: var(--ok-bg); color: var(--ok-fg); border-color: currentColor; }
.error { background: var(--warn-bg); color: var(--warn-fg); border-color: currentColor; }
.secret {
  display: block; font: 1rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  padding: .75rem; background: var(--bg); border: 1px dashed var(--line); border-radius: 6px;
  overflow-wrap: anywhere; user-select: all; margin: 0 0 .75rem;
}
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 10px; }
th, td { text-align: left; padding: .6rem .75rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
caption { text-align: left; padding: 0 0 .5rem; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
tr:last-child td { border-bottom: 0; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.badge { display: inline-block; border-radius: 999px; padding: .1rem .6rem; font-size: .85rem; font-weight: 600; }
.badge.usable { background: var(--ok-bg); color: var(--ok-fg); }
.badge.passive { background: var(--off-bg); color: var(--off-fg); }
.badge.expired { background: var(--warn-bg); color: var(--warn-fg); }
.nav { display: flex; gap: 1rem; flex-wrap: wrap; }
pre.secret { white-space: pre-wrap; }
.post { margin-top: 1rem; }
.post img, .post video { display: block; max-width: 100%; height: auto; border-radius: 6px; margin: 0 0 .75rem; }
.post video { width: 32rem; background: #000; }
progress { width: 100%; max-width: 24rem; height: .9rem; }
main > * + .card { margin-top: 1rem; }
.card > h2:first-child { margin-top: 0; }
.problems, .links { margin: .5rem 0; padding-left: 1.25rem; overflow-wrap: anywhere; }
fieldset { border: 0; padding: 0; }
fieldset label { font-weight: normal; }
.post .item { border-top: 1px solid var(--line); padding: 1rem 0 0; margin: 1rem 0 0; }
.post .text { white-space: pre-line; }
@media (max-width: 52rem) {
  table, tbody, tr, td { display: block; border: 0; }
  table { background: none; }
  caption { display: block; }
  thead { position: absolute; left: -9999px; }
  tr { background: var(--card); border: 1px solid var(--line); border-radius: 10px; margin: 0 0 1rem; padding: .5rem 0; }
  td { display: flex; justify-content: space-between; gap: 1rem; padding: .35rem 1rem; border: 0; }
  td::before { content: attr(data-label); color: var(--muted); font-size: .85rem; font-weight: 600; }
}
`;

// The copy button starts hidden, so a page without JavaScript shows no control that does nothing.
const copyJs = `"use strict";
for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(target.textContent);
      status.textContent = "Copied to the clipboard.";
    } catch {
      getSelection().selectAllChildren(target);
      status.textContent = "Copying was not allowed; the text is selected, press Ctrl+C or Cmd+C.";
    }
  });
}
`;

export const assets: Readonly<Record<string, { type: string; body: string }>> = {
  "/assets/site.css": { type: "text/css; charset=utf-8", body: css },
  "/assets/copy.js": { type: "text/javascript; charset=utf-8", body: copyJs },
};

export function assetResponse(path: string): Response {
  const asset = assets[path]!;
  return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "public, max-age=300" } });
}
