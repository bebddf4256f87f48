// The owner's cookies page, as a function of what it shows: which platforms the account has a
// file for and when each came, never a cookie. No I/O here.
import { documentOf, type Html, html } from "../web/html.ts";
import { formatTime, itemAction, message, type Owner } from "../web/pages.ts";
import type { CookiesListed } from "./store.ts";

export const COOKIES_PAGE = "/profile/cookies";

function fileRow(file: CookiesListed, owner: Owner, name: string): Html {
  return html`
    <tr>
      <td data-label="Platform">${name}</td>
      <td data-label="Uploaded">${formatTime(file.uploadedAt, "")}</td>
      <td data-label="Actions">${itemAction(
        { page: COOKIES_PAGE, id: file.platform, csrf: owner.csrf },
        "delete",
        "Delete",
        "danger",
      )}</td>
    </tr>
  `;
}

export function cookiesPage(
  view: {
    owner: Owner;
    files: CookiesListed[];
    /** The platforms a file may be for: id and name. */
    platforms: readonly { id: string; name: string }[];
    notice?: string;
    error?: string;
  },
): Html {
  const nameOf = (id: string) => view.platforms.find((each) => each.id === id)?.name ?? id;
  return documentOf(
    { title: "Cookies", account: view.owner },
    html`
      <h1>Your cookies</h1>
      <p
        class="muted">A platform's cookies, exported from a browser signed in to it (a Netscape cookie file), are used for your keys' calls to that platform in place of the server's, and for no one else's. They are kept sealed and never shown again; deleting your account deletes them.</p>
      ${message(view.notice, "notice")}${message(view.error, "error")}
      ${view.files.length === 0 ? html`<p class="muted">You have no cookies here.</p>` : html`
        <table>
          <thead>
            <tr>
              <th>Platform</th>
              <th>Uploaded</th>
              <th></th>
            </tr>
          </thead>
          <tbody>${view.files.map((file) => fileRow(file, view.owner, nameOf(file.platform)))}</tbody>
        </table>
      `}
      <form class="card" method="post" action="${COOKIES_PAGE}">
        <h2>Add or replace a platform's cookies</h2>
        <input type="hidden" name="csrf" value="${view.owner.csrf}">
        <div class="field"><label for="platform">Platform</label>
          <select id="platform" name="platform" required>${view.platforms.map((each) =>
            html`<option value="${each.id}">${each.name}</option>`
          )}</select></div>
        <div class="field"><label for="cookies">The cookie file's text</label>
          <textarea id="cookies" name="cookies" rows="8" required autocomplete="off" spellcheck="false"
            placeholder="# Netscape HTTP Cookie File"></textarea></div>
        <button type="submit">Keep these cookies</button>
      </form>
    `,
  );
}
