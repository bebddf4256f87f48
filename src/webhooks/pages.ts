// The webhooks page of the owner's site, as a function of what it shows. No I/O here.
import { EVENT_TYPES } from "./types.ts";
import type { AttemptShown, WebhookEndpoint } from "./store.ts";
import { jobLink, watchLink } from "../web/site.ts";
import { documentOf, type Html, html } from "../web/html.ts";
import { formatTime, itemAction, message, type Owner } from "../web/pages.ts";

export const WEBHOOKS_PAGE = "/profile/webhooks";

export interface EndpointView {
  endpoint: WebhookEndpoint;
  attempts: AttemptShown[];
}

/** The endpoint's state in words: delivering, failing since, or disabled and why. */
function stateOf(endpoint: WebhookEndpoint): Html {
  if (endpoint.disabledAt) {
    return html`<span class="badge expired">Disabled</span> since ${
      formatTime(endpoint.disabledAt, "")
    }: ${endpoint.disabledReason}. Rotate its secret to enable it again.`;
  }
  if (endpoint.failingSince) {
    return html`<span class="badge passive">Failing</span> since ${formatTime(endpoint.failingSince, "")}`;
  }
  return html`<span class="badge usable">Delivering</span>`;
}

/** The job and the watch an attempt's event was about, each a link to it. */
function subjectOf(attempt: AttemptShown): Html {
  return html`${
    attempt.watchId
      ? html`
        <a href="${watchLink(attempt.watchId)}">watch <code>${attempt.watchId.slice(0, 8)}</code></a>
      `
      : ""
  }${attempt.jobId ? html`<a href="${jobLink(attempt.jobId)}">job <code>${attempt.jobId.slice(0, 8)}</code></a>` : ""}`;
}

function attemptRow(attempt: AttemptShown, owner: Owner): Html {
  return html`
    <tr>
      <td data-label="Time">${formatTime(attempt.at, "")}</td>
      <td data-label="Event">${attempt.type}</td>
      <td data-label="About">${subjectOf(attempt)}</td>
      <td data-label="Status">${attempt.status ?? attempt.error ?? "no answer"}</td>
      <td data-label="Latency">${attempt.latencyMs} ms</td>
      <td data-label="Actions">
        <form method="post" action="${WEBHOOKS_PAGE}/resend">
        <input type="hidden" name="csrf" value="${owner.csrf}">
        <input type="hidden" name="message" value="${attempt.messageId}">
        <button type="submit" class="secondary">Resend</button></form>
      </td>
    </tr>
  `;
}

function endpointCard({ endpoint, attempts }: EndpointView, owner: Owner): Html {
  const item = { page: WEBHOOKS_PAGE, id: endpoint.id, csrf: owner.csrf };
  const actions = [
    itemAction(item, "rotate", "Rotate secret", "secondary"),
    itemAction(item, "delete", "Delete", "danger"),
  ];
  return html`<section class="card">
  <h2><code>${endpoint.url}</code></h2>
  <p>Events: ${endpoint.events.join(", ")}. ${stateOf(endpoint)}</p>
  <p class="muted">Id <code>${endpoint.id}</code>, registered ${formatTime(endpoint.createdAt, "")}</p>
  ${
    attempts.length === 0 ? html`<p class="muted">No delivery attempted yet.</p>` : html`
      <table>
        <thead>
          <tr>
            <th>Time</th>
            <th>Event</th>
            <th>About</th>
            <th>Status</th>
            <th>Latency</th>
            <th></th>
          </tr>
        </thead>
        <tbody>${attempts.map((attempt) => attemptRow(attempt, owner))}</tbody>
      </table>
    `
  }
  <div class="actions">${actions}</div>
</section>`;
}

export function webhooksPage(
  view: {
    owner: Owner;
    endpoints: EndpointView[];
    secret?: { id: string; value: string };
    notice?: string;
    error?: string;
  },
): Html {
  return documentOf(
    { title: "Webhooks", account: view.owner },
    html`
      <h1>Webhooks</h1>
      <p
        class="muted">Your receivers are told when a job of your account ends and when a watch finds posts, signed as Standard Webhooks signs (the API reference says how to verify).</p>
      ${message(view.notice, "notice")}${message(view.error, "error")}
      ${view.secret
        ? html`
          <div class="card">
            <p><strong>Copy this signing secret now. It is shown only this once.</strong></p>
            <code class="secret" id="new-secret">${view.secret.value}</code>
            <button type="button" data-copy="new-secret" data-status="copy-status" hidden>Copy secret</button>
            <p id="copy-status" class="muted" role="status" aria-live="polite"></p>
          </div>
        `
        : ""}
      ${view.endpoints.map((each) => endpointCard(each, view.owner))}
      <form class="card" method="post" action="${WEBHOOKS_PAGE}">
        <h2>Add an endpoint</h2>
        <input type="hidden" name="csrf" value="${view.owner.csrf}">
        <div class="field"><label for="url">Receiver URL</label>
          <input id="url" name="url" type="url" required placeholder="https://example.com/hooks"></div>
        <fieldset class="field"><legend>Events</legend>
        ${EVENT_TYPES.map((type) =>
          html`
            <label><input type="checkbox" name="events" value="${type}" checked> ${type}</label>
          `
        )}
        </fieldset>
        <button type="submit">Add endpoint</button>
      </form>
    `,
  );
}
