// The pages of the owner's site, as functions of what they show. No I/O here.
import type { ApiKeyInfo, KeyCondition } from "../store/api-keys.ts";
import { documentOf, type Html, html } from "./html.ts";
import { MIN_PASSWORD_LENGTH } from "../auth/password.ts";

export interface Owner {
  email: string;
  csrf: string;
}

export const expiryChoices = ["never", "30", "90", "365"] as const;

/** A line that says what an action did (a notice) or why it did not (an error); nothing without text. */
export const message = (text: string | undefined, kind: "notice" | "error") =>
  text ? html`<p class="${kind}" role="${kind === "error" ? "alert" : "status"}">${text}</p>` : "";

/** A button that posts one action (`page`/`action`) on the item `id` of a list on the owner's page. */
export const itemAction = (
  item: { page: string; id: string; csrf: string },
  action: string,
  label: string,
  kind: "secondary" | "danger",
) =>
  html`<form method="post" action="${item.page}/${action}">
    <input type="hidden" name="csrf" value="${item.csrf}">
    <input type="hidden" name="id" value="${item.id}">
    <button type="submit" class="${kind}">${label}</button></form>`;

export function signInPage(
  view: { csrf: string; email?: string; error?: string; notice?: string; signupOpen: boolean },
): Html {
  return documentOf(
    { title: "Sign in", narrow: true },
    html`<h1>Sign in</h1>
<p class="muted">Manage the API keys of your account.</p>
${message(view.notice, "notice")}${message(view.error, "error")}
<form class="card" method="post" action="/sign-in">
  <input type="hidden" name="csrf" value="${view.csrf}">
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ""}"></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <button type="submit">Sign in</button>
</form>
${view.signupOpen ? html`<p>No account yet? <a href="/sign-up">Create one</a>.</p>` : ""}`,
  );
}

export function signUpPage(view: { csrf: string; email?: string; error?: string }): Html {
  return documentOf(
    { title: "Create an account", narrow: true },
    html`<h1>Create an account</h1>
${message(view.error, "error")}
<form class="card" method="post" action="/sign-up">
  <input type="hidden" name="csrf" value="${view.csrf}">
  <div class="field"><label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${view.email ?? ""}"></div>
  <div class="field"><label for="password">Password</label>
    <span class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters. There is no reset by email, so keep it safe.</span>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint"></div>
  <div class="field"><label for="repeat">Repeat the password</label>
    <input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"></div>
  <button type="submit">Create account</button>
</form>
<p>Have an account? <a href="/sign-in">Sign in</a>.</p>`,
  );
}

export function signUpClosedPage(): Html {
  return documentOf(
    { title: "Sign-up is closed" },
    html`<h1>Sign-up is closed</h1>
<p>This service does not take new accounts here. Ask its operator for one, then <a href="/sign-in">sign in</a>.</p>`,
  );
}

const conditionLabel: Record<KeyCondition, string> = { usable: "Usable", passive: "Passive", expired: "Expired" };

/** UTC to the minute: the same on every screen and in the operator's command line. */
export function formatTime(date: Date | null, none: string): Html | string {
  if (!date) return none;
  const text = `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

function keyRow(key: ApiKeyInfo, csrf: string): Html {
  const makePassive = key.condition !== "passive";
  return html`
    <tr>
      <td data-label="Name">${key.name}</td>
      <td data-label="Key"><code>${key.displayPrefix}…</code></td>
      <td data-label="Tier">${key.tier}</td>
      <td data-label="Condition"><span class="badge ${key.condition}">${conditionLabel[key.condition]}</span></td>
      <td data-label="Created">${formatTime(key.createdAt, "")}</td>
      <td data-label="Expires">${formatTime(key.expiresAt, "Never")}</td>
      <td data-label="Last used">${formatTime(key.lastUsedAt, "Never")}</td>
      <td data-label="Last 24 h" class="num">${key.used24h} of ${key.dailyLimit}</td>
      <td data-label="Actions">
        <div class="actions">
          <form method="post" action="/profile/api-keys/condition">
            <input type="hidden" name="csrf" value="${csrf}">
            <input type="hidden" name="id" value="${key.id}">
            <input type="hidden" name="passive" value="${makePassive ? "true" : "false"}">
            <button type="submit" class="secondary small" aria-label="${makePassive
              ? "Turn passive"
              : "Make usable"}: ${key.name}">${makePassive ? "Turn passive" : "Make usable"}</button>
          </form>
          <a class="button secondary small" href="/profile/api-keys/delete?id=${encodeURIComponent(key.id)}"
            aria-label="Delete: ${key.name}">Delete</a>
        </div>
      </td>
    </tr>
  `;
}

/** A call anyone can paste into a terminal, against this server. */
function exampleCall(apiBase: string, key = "$MEDIA_API_KEY"): Html {
  return html`
    <pre class="secret" id="example-call"
      aria-label="Example call">curl -H "Authorization: Bearer ${key}" "${apiBase}/api/v1/post?url=https%3A%2F%2Fx.com%2FNASA%2Fstatus%2F1841206275088290279"</pre>
  `;
}

/** Why fewer keys are listed than the account holds: deleted keys keep their places for up to 24 h. */
function deletedHolding(deleted: number): string {
  if (deleted <= 0) return "";
  return `; ${deleted} deleted ${deleted === 1 ? "key takes a place" : "keys take places"} until ${
    deleted === 1 ? "its" : "their"
  } requests of the last 24 hours have left that window`;
}

export function keysPage(
  view: {
    owner: Owner;
    keys: ApiKeyInfo[];
    /** The places taken: the keys listed, and deleted keys whose requests are still in the 24 h window. */
    held: number;
    notice?: string;
    error?: string;
    maxKeys: number;
    apiBase: string;
  },
): Html {
  const { owner, keys } = view;
  return documentOf(
    { title: "API keys", account: owner },
    html`
      <h1>API keys</h1>
      <p
        class="muted">Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. A passive key is refused until you make it usable again. Every operation is in the <a href="/docs">API reference</a>; or <a href="/paste">paste a link</a> to see a post and download it here.</p>
      ${message(view.notice, "notice")}${message(view.error, "error")}
      ${keys.length === 0 ? html`<p>You have no keys yet.</p>` : html`
        <table>
          <caption class="muted">Your keys (${keys.length} of at most ${view.maxKeys}${deletedHolding(
            view.held - keys.length,
          )})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Tier</th>
              <th scope="col">Condition</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Last 24 h</th>
              <th scope="col"><span class="muted">Actions</span></th>
            </tr>
          </thead>
          <tbody>
        ${keys.map((key) => keyRow(key, owner.csrf))}
          </tbody>
        </table>
      `}
      <h2 id="create">Create a key</h2>
      <form class="card" method="post" action="/profile/api-keys" aria-labelledby="create">
        <input type="hidden" name="csrf" value="${owner.csrf}">
        <div class="row">
          <div class="field"><label for="name">Name</label>
            <span class="hint" id="name-hint">What the key is for, such as “laptop” or “backup job”.</span>
            <input id="name" name="name" type="text" required maxlength="100" autocomplete="off" aria-describedby="name-hint"></div>
          <div class="field short"><label for="expires">Expires after</label>
            <select id="expires" name="expires">
              <option value="never">Never</option><option value="30">30 days</option><option value="90">90 days</option><option value="365">365 days</option>
            </select></div>
          <div class="field short"><label for="shape">Shape</label>
            <select id="shape" name="shape" aria-describedby="shape-hint">
              <option value="xva">xva_… (this API’s)</option><option value="uuid">UUID (for cobalt’s web app)</option>
            </select></div>
          <div class="field"><button type="submit">Create key</button></div>
        </div>
        <p class="muted"
          id="shape-hint">cobalt’s web app takes only a key shaped as a UUID; every other client takes either.</p>
        <p class="muted">New keys are on the FREE tier (100 requests a day); the operator can change a key's tier.</p>
      </form>
      <h2 id="example">An example call</h2>
      <p>The record of a post, from this server (see the <a href="/docs">API reference</a> for the rest):</p>
      ${exampleCall(view.apiBase)}
    `,
  );
}

export function keyCreatedPage(view: { owner: Owner; key: ApiKeyInfo; plain: string; apiBase: string }): Html {
  return documentOf(
    { title: "Your new API key", account: view.owner },
    html`<h1>Your new API key</h1>
<div class="card">
  <p><strong>Copy this key now. It is shown only this once</strong>: we keep only a hash of it, so nobody, not even the operator, can show it to you again. If you lose it, delete it and create another.</p>
  <p class="muted" id="new-key-label">Key “${view.key.name}”, ${view.key.tier} tier, expires: ${
      formatTime(view.key.expiresAt, "never")
    }</p>
  <code class="secret" id="new-key" aria-labelledby="new-key-label">${view.plain}</code>
  <div class="actions">
    <button type="button" data-copy="new-key" data-status="copy-status" hidden>Copy key</button>
    <a class="button secondary" href="/profile/api-keys">Done, back to my keys</a>
  </div>
  <p id="copy-status" class="muted" role="status" aria-live="polite"></p>
</div>
<p>Try it (the <a href="/docs">API reference</a> has every operation):</p>
${exampleCall(view.apiBase, view.plain)}`,
  );
}

export function confirmDeletePage(view: { owner: Owner; key: ApiKeyInfo }): Html {
  const { key, owner } = view;
  return documentOf(
    { title: "Delete key", account: owner },
    html`<h1>Delete the key “${key.name}”?</h1>
<div class="card">
  <p>The key <code>${key.displayPrefix}…</code> stops working at once and leaves your list. This cannot be undone. Until its requests of the last 24 hours have left that window, it still takes one of your places for keys (so that a new key does not start a fresh daily count).</p>
  <form method="post" action="/profile/api-keys/delete" class="actions">
    <input type="hidden" name="csrf" value="${owner.csrf}">
    <input type="hidden" name="id" value="${key.id}">
    <button type="submit" class="danger">Delete key</button>
    <a class="button secondary" href="/profile/api-keys">Keep it</a>
  </form>
</div>`,
  );
}

export function errorPage(view: { title: string; detail: string; owner?: Owner }): Html {
  return documentOf(
    { title: view.title, account: view.owner },
    html`<h1>${view.title}</h1>
<p>${view.detail}</p>
<p><a href="/profile/api-keys">Back to your API keys</a></p>`,
  );
}

export function accountPage(view: { owner: Owner; passwordError?: string; deleteError?: string }): Html {
  const { owner } = view;
  return documentOf(
    { title: "Your account", account: owner },
    html`<h1>Your account</h1>
<p class="muted">Signed in as ${owner.email}.</p>
<h2 id="change-password">Change the password</h2>
${message(view.passwordError, "error")}
<form class="card" method="post" action="/profile/account/password" aria-labelledby="change-password">
  <input type="hidden" name="csrf" value="${owner.csrf}">
  <div class="field"><label for="current">Current password</label>
    <input id="current" name="current" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="password">New password</label>
    <span class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters. Your other sessions end.</span>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint"></div>
  <div class="field"><label for="repeat">Repeat the new password</label>
    <input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"></div>
  <button type="submit">Change password</button>
</form>
<h2 id="delete-account">Delete the account</h2>
${message(view.deleteError, "error")}
<form class="card" method="post" action="/profile/account/delete" aria-labelledby="delete-account">
  <input type="hidden" name="csrf" value="${owner.csrf}">
  <p>The account and all its keys are deleted at once; the keys stop working. This cannot be undone.</p>
  <div class="field"><label for="confirm-password">Your password, to confirm</label>
    <input id="confirm-password" name="current" type="password" autocomplete="current-password" required></div>
  <button type="submit" class="danger">Delete my account</button>
</form>`,
  );
}
