// Xiaohongshu (RedNote) note links as people paste them: www.xiaohongshu.com/explore/<id>, or
// /discovery/item/<id> as the app shares them, each with the `xsec_token` the site now wants before
// it shows a note to a visitor; and xhslink.com and xhslink.cn short links, which redirect to one of those.

export interface NoteRef {
  /** The note's id: 24 hex digits (yt-dlp's pattern is `[\da-f]+`). */
  id: string;
  /** The link's `xsec_token` and `xsec_source`, which the page is asked with; nothing else of its query. */
  access: URLSearchParams;
}

const notePath = /^\/(?:explore|discovery\/item)\/([0-9a-f]{8,64})\/?$/;
// `/<code>` (the first shape), then `/a/<code>`, `/m/<code>`, `/o/<code>`: a letter the app puts before the code.
const shortPath = /^\/(?:[a-z]\/)?[0-9A-Za-z]{1,64}\/?$/;
const shortHost = /(?:^|\.)(xhslink\.(?:com|cn))$/i;
const accessParams = ["xsec_token", "xsec_source"];

/** Whether the link is a short link (xhslink.com/a/<code>, xhslink.cn/m/<code>), which must be followed to its note first. */
export function isShortLink(url: URL): boolean {
  return shortHostOf(url) !== null && shortPath.test(url.pathname);
}

/** The short-link host a link is on (xhslink.com or xhslink.cn, without a subdomain); null for any other. */
export function shortHostOf(url: URL): string | null {
  return shortHost.exec(url.hostname)?.[1]?.toLowerCase() ?? null;
}

/** The note a xiaohongshu.com link names, or null when it names none. */
export function noteOf(url: URL): NoteRef | null {
  if (!/(^|\.)xiaohongshu\.com$/i.test(url.hostname)) return null;
  const id = notePath.exec(url.pathname)?.[1];
  if (id === undefined) return null;
  const access = new URLSearchParams();
  for (const name of accessParams) {
    const value = url.searchParams.get(name);
    if (value !== null && value.length <= 512) access.set(name, value);
  }
  return { id, access };
}

/** The note page's address, asked with the link's access token. */
export function notePage(ref: NoteRef): URL {
  const page = new URL(`https://www.xiaohongshu.com/explore/${ref.id}`);
  page.search = ref.access.toString();
  return page;
}
