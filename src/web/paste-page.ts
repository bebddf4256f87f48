// The paste page as a function of what it shows: the form, and the post as a person wants to see
// it, with a download link per item and quality. No I/O here.
import type { LinkedPostMediaItem, LinkedPostRecord } from "../platforms/records.ts";
import type { ApiKeyInfo } from "../store/api-keys.ts";
import { documentOf, type Html, html } from "./html.ts";
import type { Owner } from "./pages.ts";
import { JOBS_PAGE } from "./site.ts";

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
  /** The post, its downloads cut to the clip asked for when there is one. */
  post?: LinkedPostRecord;
  /** Per item of the post's `media`: the signed link of its sound as MP3, null for a photo or a GIF. */
  audioUrls?: (string | null)[];
  /** The clip's bounds as the owner wrote them. */
  clip: { start: string; end: string };
  /** The job form's fields as last sent, when it comes back with an error. */
  job?: JobFields;
  error?: string;
  jobError?: string;
}

/** What the job form sends: links one per line, files or records alone, a clip. */
export interface JobFields {
  links: string;
  files: boolean;
  start: string;
  end: string;
}

/** 0:04, 1:02:03 */
export function formatDuration(seconds: number): string {
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/**
 * The select of the key a form's call is counted against; `id` tells a page's forms apart, `first`
 * names the call that makes a key for an owner with no usable one.
 */
export function keyChoice(view: Pick<PasteView, "keys" | "keyId">, id = "key", first = "your first look"): Html {
  if (view.keys.length === 0) {
    return html`
      <p
        class="muted">The page calls the API as one of your keys. You have no usable key yet: ${first} makes one named “${PASTE_KEY_NAME}”, which you will find on <a
        href="/profile/api-keys">your keys page</a>.</p>
    `;
  }
  return html`<div class="field short"><label for="${id}">Count against the key</label>
    <select id="${id}" name="key">${
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

/** What shows an item: its photo or poster, else its video itself, to play by its signed link (fetched only when played). */
function pictureOf(item: LinkedPostMediaItem, what: string, number: number): Html | string {
  if (item.type === "photo") return html`<img src="${item.url}" alt="${what} ${number}" loading="lazy">`;
  if (item.posterUrl) {
    return html`<img src="${item.posterUrl}" alt="Poster of ${what.toLowerCase()} ${number}" loading="lazy">`;
  }
  return html`<video src="${item.downloadUrl}" controls preload="none" aria-label="${what} ${number}"></video>`;
}

function itemView(
  item: LinkedPostMediaItem,
  number: number,
  fallbackDuration: number | null,
  audioUrl: string | null,
): Html {
  const what = item.type === "photo" ? "Photo" : item.type === "gif" ? "GIF" : "Video";
  const duration = item.durationSec ?? fallbackDuration;
  const downloads = item.videoVariants.length > 0
    ? item.videoVariants.map((variant) =>
      html`<a class="button" href="${variant.downloadUrl}" download>Download ${what.toLowerCase()} ${number}, ${variant.qualityLabel}</a>`
    )
    : html`<a class="button" href="${item.downloadUrl}" download>Download ${what.toLowerCase()} ${number}</a>`;
  const audio = audioUrl
    ? html`<a class="button secondary" href="${audioUrl}" download>Download the sound of ${what.toLowerCase()} ${number} (MP3)</a>`
    : "";
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
  ${pictureOf(item, what, number)}
  <div class="actions">${downloads}${audio}</div>
</section>`;
}

/** What the downloads hold when a clip was asked for. */
const clipLine = (clip: PasteView["clip"]) =>
  clip.start || clip.end
    ? html`
      <p class="notice"
        role="status">Each video and sound below is the part from ${clip.start || "the start"} to ${clip.end ||
          "the end"}, cut at the key frame at or before its start.</p>
    `
    : "";

function postView(post: LinkedPostRecord, view: PasteView): Html {
  const [title, ...rest] = (post.text ?? "").split("\n");
  const curl = [
    `curl -H "Authorization: Bearer $MEDIA_API_KEY" "${view.apiBase}/api/v1/post?url=${encodeURIComponent(view.link)}"`,
    `curl -OJ -H "Authorization: Bearer $MEDIA_API_KEY" "${view.apiBase}/api/v1/download?${new URLSearchParams({
      url: view.link,
      ...(view.clip.start ? { start: view.clip.start } : {}),
      ...(view.clip.end ? { end: view.clip.end } : {}),
    })}"`,
  ].join("\n");
  return html`<article class="card post" aria-labelledby="post-title">
  <h2 id="post-title">${title || `${post.platform} post ${post.id}`}</h2>
  <p class="muted">${
    post.authorName ? `By ${post.authorName} · ` : ""
  }${post.platform} · <a href="${post.url}" rel="noreferrer noopener">${post.url}</a></p>
  ${rest.join("\n").trim() ? html`<p class="text">${rest.join("\n").trim()}</p>` : ""}
  ${clipLine(view.clip)}
  ${post.media.map((item, at) => itemView(item, at + 1, post.durationSec, view.audioUrls?.[at] ?? null))}
  <h3 id="curl-label">The same with the API</h3>
  <p class="muted">Each download above is a signed link that works for a while without a key. From a script, send your key (<code>MEDIA_API_KEY</code>):</p>
  <pre class="secret" id="curl" aria-labelledby="curl-label">${curl}</pre>
  <div class="actions"><button type="button" data-copy="curl" data-status="curl-status" hidden>Copy the command</button></div>
  <p id="curl-status" class="muted" role="status" aria-live="polite"></p>
</article>`;
}

/** A clip's two bounds, each optional; `id` tells the page's forms apart. */
const clipFields = (id: string, clip: { start: string; end: string }) =>
  html`
    <div class="field short"><label for="${id}-start">Clip from</label>
        <input id="${id}-start" name="start" type="text" inputmode="decimal" placeholder="0:00" value="${clip
          .start}" autocomplete="off"></div>
    <div class="field short"><label for="${id}-end">Clip to</label>
        <input id="${id}-end" name="end" type="text" inputmode="decimal" placeholder="the end" value="${clip
          .end}" autocomplete="off"></div>
  `;

/** Many links as one job (POST /api/v1/jobs): its page (src/jobs) takes the form and shows the job. */
function jobForm(view: PasteView): Html {
  const fields = view.job ?? { links: "", files: true, start: "", end: "" };
  return html`<form class="card" method="post" action="${JOBS_PAGE}">
  <h2>Many links as one job</h2>
  <p class="muted">Each link becomes an item of the job, and a playlist, channel or profile all its posts; each item counts as one call of the key. When it has finished, its archive holds the files (or the records alone) in one ZIP.</p>
  <input type="hidden" name="csrf" value="${view.owner.csrf}">
  <div class="field"><label for="links">Links, one per line</label>
    <textarea id="links" name="links" rows="5" required placeholder="https://…">${fields.links}</textarea></div>
  <fieldset class="field"><legend>The archive holds</legend>
    <label><input type="radio" name="files" value="true" ${
    fields.files ? html`checked` : ""
  }> the files and their records</label>
    <label><input type="radio" name="files" value="false" ${
    fields.files ? "" : html`checked`
  }> the records alone</label>
  </fieldset>
  <div class="row">
    ${clipFields("job", fields)}
    ${keyChoice(view, "job-key", "your first job")}
  </div>
  ${view.jobError ? html`<p class="error" role="alert">${view.jobError}</p>` : ""}
  <button type="submit">Make the job</button>
</form>`;
}

export function pastePage(view: PasteView): Html {
  return documentOf(
    { title: "Paste a link", account: view.owner },
    html`
      <h1>Paste a link</h1>
      <p
        class="muted">Paste the link of a post to see it and download its photos, videos and sound, whole or a part of them. Each look and each download counts as one call of the key you choose.</p>
      <form class="card" method="post" action="/paste">
        <input type="hidden" name="csrf" value="${view.owner.csrf}">
        <div class="row">
          <div class="field"><label for="url">Link to a post</label>
            <input id="url" name="url" type="url" inputmode="url" required placeholder="https://…" value="${view
              .link}" autocomplete="off"></div>
          ${keyChoice(view)}
        </div>
        <div class="row">
          ${clipFields("clip", view.clip)}
          <div class="field"><button type="submit">Show the post</button></div>
        </div>
      </form>
      ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ""}
      ${view.post ? postView(view.post, view) : ""}
      ${jobForm(view)}
    `,
  );
}
