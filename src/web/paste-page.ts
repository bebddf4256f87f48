// The paste page as a function of what it shows: the form, and the post as a person wants to see
// it, with a download link per item and quality. No I/O here.
import type { LinkedPostMediaItem, LinkedPostRecord } from "../platforms/records.ts";
import type { ApiKeyInfo } from "../store/api-keys.ts";
import { documentOf, type Html, html } from "./html.ts";
import type { Owner } from "./pages.ts";

/** The name of the key made for an owner who has none usable at their first look (paste-routes.ts). */
export const PASTE_KEY_NAME = "Paste page";

export interface PasteView {
  owner: Owner;
  /** The owner's usable keys, one of which the call is counted against. */
  keys: ApiKeyInfo[];
  link: string;
  keyId?: string;
  /** Where callers reach the API, for the curl lines. */
  apiBase: string;
  post?: LinkedPostRecord;
  error?: string;
}

/** 0:04, 1:02:03 */
export function formatDuration(seconds: number): string {
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

function keyChoice(view: PasteView): Html {
  if (view.keys.length === 0) {
    return html`
      <p
        class="muted">The page calls the API as one of your keys. You have no usable key yet: your first look makes one named “${PASTE_KEY_NAME}”, which you will find on <a
        href="/profile/api-keys">your keys page</a>.</p>
    `;
  }
  return html`<div class="field short"><label for="key">Count against the key</label>
    <select id="key" name="key">${
    view.keys.map((key) =>
      html`
        <option value="${key.id}" ${key.id === view.keyId
          ? html`
            selected
          `
          : ""}>${key.name} (${key.displayPrefix}…)</option>
      `
    )
  }</select></div>`;
}

function itemView(item: LinkedPostMediaItem, number: number, fallbackDuration: number | null): Html {
  const what = item.type === "photo" ? "Photo" : item.type === "gif" ? "GIF" : "Video";
  const duration = item.durationSec ?? fallbackDuration;
  const picture = item.type === "photo" ? item.url : item.posterUrl;
  const downloads = item.videoVariants.length > 0
    ? item.videoVariants.map((variant) =>
      html`<a class="button" href="${variant.downloadUrl}" download>Download ${what.toLowerCase()} ${number}, ${variant.qualityLabel}</a>`
    )
    : html`<a class="button" href="${item.downloadUrl}" download>Download ${what.toLowerCase()} ${number}</a>`;
  return html`<section class="item" aria-label="${what} ${number}">
  <h3>${what} ${number}${
    duration !== null && item.type !== "photo"
      ? html`
        <span class="muted">· ${formatDuration(duration)}</span>
      `
      : ""
  }${
    item.width && item.height
      ? html`
        <span class="muted">· ${item.width}×${item.height}</span>
      `
      : ""
  }</h3>
  ${
    picture
      ? html`<img src="${picture}" alt="${
        item.type === "photo" ? `${what} ${number}` : `Poster of ${what.toLowerCase()} ${number}`
      }" loading="lazy">`
      : ""
  }
  <div class="actions">${downloads}</div>
</section>`;
}

function postView(post: LinkedPostRecord, view: PasteView): Html {
  const [title, ...rest] = (post.text ?? "").split("\n");
  const curl = [
    `curl -H "Authorization: Bearer $MEDIA_API_KEY" "${view.apiBase}/api/v1/post?url=${encodeURIComponent(view.link)}"`,
    `curl -OJ -H "Authorization: Bearer $MEDIA_API_KEY" "${view.apiBase}/api/v1/download?url=${
      encodeURIComponent(view.link)
    }"`,
  ].join("\n");
  return html`<article class="card post" aria-labelledby="post-title">
  <h2 id="post-title">${title || `${post.platform} post ${post.id}`}</h2>
  <p class="muted">${
    post.authorName ? `By ${post.authorName} · ` : ""
  }${post.platform} · <a href="${post.url}" rel="noreferrer noopener">${post.url}</a></p>
  ${rest.join("\n").trim() ? html`<p class="text">${rest.join("\n").trim()}</p>` : ""}
  ${post.media.map((item, at) => itemView(item, at + 1, post.durationSec))}
  <h3 id="curl-label">The same with the API</h3>
  <p class="muted">Each download above is a signed link that works for a while without a key. From a script, send your key (<code>MEDIA_API_KEY</code>):</p>
  <pre class="secret" id="curl" aria-labelledby="curl-label">${curl}</pre>
  <div class="actions"><button type="button" data-copy="curl" data-status="curl-status" hidden>Copy the command</button></div>
  <p id="curl-status" class="muted" role="status" aria-live="polite"></p>
</article>`;
}

export function pastePage(view: PasteView): Html {
  return documentOf(
    { title: "Paste a link", account: view.owner },
    html`
      <h1>Paste a link</h1>
      <p
        class="muted">Paste the link of a post to see it and download its photos and videos. Each look and each download counts as one call of the key you choose.</p>
      <form class="card" method="post" action="/paste">
        <input type="hidden" name="csrf" value="${view.owner.csrf}">
        <div class="row">
          <div class="field"><label for="url">Link to a post</label>
            <input id="url" name="url" type="url" inputmode="url" required placeholder="https://…" value="${view
              .link}" autocomplete="off"></div>
          ${keyChoice(view)}
          <div class="field"><button type="submit">Show the post</button></div>
        </div>
      </form>
      ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ""}
      ${view.post ? postView(view.post, view) : ""}
    `,
  );
}
