// The watches page of the owner's site, as a function of what it shows. No I/O here.
import type { Watch } from "./watch.ts";
import { documentOf, type Html, html } from "../web/html.ts";
import { formatTime, itemAction, message, type Owner } from "../web/pages.ts";

export const WATCHES_PAGE = "/profile/watches";

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
    <tr>
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

export function watchesPage(view: { owner: Owner; watches: Watch[]; notice?: string; error?: string }): Html {
  return documentOf(
    { title: "Watches", account: view.owner },
    html`
      <h1>Watches</h1>
      <p
        class="muted">A watch looks at a channel, playlist or profile again and again and tells your webhooks of the posts it had not seen (watch.found). Make one with POST /api/v1/watches (the API reference says how).</p>
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
    `,
  );
}
