// The watches page of the owner's site, as a function of what it shows. No I/O here.
import type { Watch } from "./watch.ts";
import { documentOf, type Html, html } from "../web/html.ts";
import { formatTime, itemAction, message, type Owner } from "../web/pages.ts";
import { keyChoice } from "../web/paste-page.ts";
import { WATCHES_PAGE } from "../web/site.ts";
import type { ApiKeyInfo } from "../store/api-keys.ts";

export { WATCHES_PAGE };

/** What the form to make a watch sends. */
export interface WatchFields {
  url: string;
  every: string;
  files: boolean;
}

/** The repeat in words: every so many seconds, or its cron line. */
const repeatOf = (watch: Watch) =>
  "everyS" in watch.repeat ? `every ${watch.repeat.everyS} s` : `cron ${watch.repeat.cron} (UTC)`;

/** Running (and when next), or paused and why. */
function stateOf(watch: Watch): Html {
  if (watch.pausedAt) {
    return html`<span class="badge passive">Paused</span> since ${
      formatTime(watch.pausedAt, "")
    }: ${watch.pausedReason}`;
  }
  return html`<span class="badge usable">Watching</span>, next run ${formatTime(watch.nextRunAt, "")}`;
}

function watchRow(watch: Watch, owner: Owner): Html {
  const item = { page: WATCHES_PAGE, id: watch.id, csrf: owner.csrf };
  return html`
    <tr id="watch-${watch.id}">
      <td data-label="Link"><code>${watch.url.href}</code></td>
      <td data-label="Repeat">${repeatOf(watch)}</td>
      <td data-label="State">${stateOf(watch)}${watch.lastProblem
        ? html`<br><span class="muted">${watch.lastProblem}</span>`
        : ""}</td>
      <td data-label="Runs">${watch.runs}, last ${formatTime(watch.lastRunAt, "never")}</td>
      <td data-label="Actions">${watch.pausedAt
        ? itemAction(item, "resume", "Resume", "secondary")
        : itemAction(item, "pause", "Pause", "secondary")}${itemAction(item, "delete", "Delete", "danger")}</td>
    </tr>
  `;
}

/** The form that makes a watch (POST /api/v1/watches, as the key chosen). */
function watchForm(view: WatchesView): Html {
  const fields = view.fields ?? { url: "", every: "6h", files: false };
  return html`
    <form class="card" method="post" action="${WATCHES_PAGE}">
      <h2>Watch a link</h2>
      <input type="hidden" name="csrf" value="${view.owner.csrf}">
      <div class="row">
        <div class="field"><label for="watch-url">Channel, playlist or profile</label>
          <input id="watch-url" name="url" type="url" inputmode="url" required placeholder="https://…" value="${fields
            .url}" autocomplete="off"></div>
        <div class="field short"><label for="every">Every</label>
          <input id="every" name="every" type="text" required value="${fields.every}" aria-describedby="every-hint">
          <span class="hint" id="every-hint">15m, 6h, 1d…</span></div>
        ${keyChoice(view, "watch-key", "your first watch")}
      </div>
      <div
        class="field"><label><input type="checkbox" name="files" value="true" ${fields.files
          ? html`checked`
          : ""}> Each run's archive holds the files, not the records alone</label></div>
      <button type="submit">Watch it</button>
    </form>
  `;
}

export interface WatchesView {
  owner: Owner;
  watches: Watch[];
  keys: ApiKeyInfo[];
  keyId?: string;
  /** The form as last sent, when it comes back with an error. */
  fields?: WatchFields;
  notice?: string;
  error?: string;
}

export function watchesPage(view: WatchesView): Html {
  return documentOf(
    { title: "Watches", account: view.owner },
    html`
      <h1>Watches</h1>
      <p
        class="muted">A watch looks at a channel, playlist or profile again and again and tells your webhooks of the posts it had not seen (watch.found). Its first run records what the link holds now; each later run makes a job of the new posts, shown on <a href="/profile/jobs">your jobs page</a>, and counts as one call of its key.</p>
      ${message(view.notice, "notice")}${message(view.error, "error")}
      ${view.watches.length === 0 ? html`<p class="muted">No watches yet.</p>` : html`
        <table>
          <thead>
            <tr>
              <th>Link</th>
              <th>Repeat</th>
              <th>State</th>
              <th>Runs</th>
              <th></th>
            </tr>
          </thead>
          <tbody>${view.watches.map((watch) => watchRow(watch, view.owner))}</tbody>
        </table>
      `}
      ${watchForm(view)}
    `,
  );
}
