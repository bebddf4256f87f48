// HTML built with one tagged template that escapes every value it is given, unless the value is
// already Html. Pages are whole documents rendered on the server, served with a strict policy.
import { escapeHtml } from "../util/html-escape.ts";

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]!) : ""), ""));
}

/**
 * Only our own files may run or style the page, nothing may frame it, and forms may only post
 * back to us. The other headers keep responses out of caches and other windows' reach.
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

export interface Layout {
  title: string;
  /** A single column, for the short forms of signing in and up. */
  narrow?: boolean;
  /** The signed-in owner, for the header's sign-out form. */
  account?: { email: string; csrf: string };
  /** Load the page again after so many seconds: a page of work under way, followed without JavaScript. */
  refreshS?: number;
}

export function documentOf(layout: Layout, main: Html): Html {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${layout.title} · media-api</title>
        ${layout.refreshS ? html`<meta http-equiv="refresh" content="${layout.refreshS}">` : ""}
        <link rel="stylesheet" href="/assets/site.css">
        <script src="/assets/copy.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="bar">
      <a class="brand" href="/profile/api-keys">media-api</a>
      ${layout.account
        ? html`
          <nav class="nav"
            aria-label="Pages"><a href="/profile/api-keys">API keys</a> <a href="/paste">Paste a link</a> <a href="/profile/jobs">Jobs</a> <a href="/profile/webhooks">Webhooks</a> <a href="/profile/watches">Watches</a> <a href="/profile/account">Account</a> <a href="/docs">API reference</a></nav>
          <form class="signout" method="post" action="/sign-out">
            <span class="who">${layout.account.email}</span>
            <input type="hidden" name="csrf" value="${layout.account.csrf}">
            <button type="submit" class="link">Sign out</button>
          </form>
        `
        : ""}
        </header>
        <main id="main" ${layout.narrow
          ? html`
            class="narrow"
          `
          : ""}>
    ${main}
        </main>
      </body>
    </html>
  `;
}

export function htmlResponse(page: Html, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", "no-store");
  return new Response(page.text, { status: init.status ?? 200, headers });
}
