// Xiaohongshu (RedNote) note links as people paste them: www.xiaohongshu.com/explore/<id>, or
// /discovery/item/<id> as the app shares them, each with the `xsec_token` the site now wants before
// it shows a note to a visitor; and xhslink.com short links, which redirect to one of those.

export interface NoteRef {
  /** The note's id: 24 hex digits (yt-dlp's pattern is `[\da-f]+`). */
  id: string;
  /** The link's `xsec_token` and `xsec_source`, which the page is asked with; nothing else of its query. */
  access: URLSearchParams;
}

const notePath = /^\/(?:explore|discovery\/item)\/([0-9a-f]{8,64})\/?$/;
const shortPath = /^\/[a-z]\/[0-9A-Za-z]{1,64}\/?$/;
const accessParams = ["xsec_token", "xsec_source"];

/** Whether the link is a short link (xhslink.com/a/<code>), which must be followed to its note first. */
export function isShortLink(url: URL): boolean {
  return /(^|\.)xhslink\.com$/i.test(url.hostname) && shortPath.test(url.pathname);
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
