// Threads post links as people paste them: www.threads.com or threads.net, `/@<user>/post/<code>`
// (with `/media` after it as the web client writes a post's media view), `/t/<code>` and
// `/_/post/<code>`, the shapes cobalt's, FxEmbed's and yt-dlp's readers accept. Pure.

export interface ThreadsPostRef {
  /** The post's shortcode, as in its link. */
  code: string;
  /** The author's user name when the link names one, else "_" (Threads answers either). */
  user: string;
}

// Shortcodes are base 64 over A-Za-z0-9-_; cobalt caps them at 24 characters.
const code = "([A-Za-z0-9_-]{1,24})";
const postPaths = [
  new RegExp(`^/@([\\w.]{1,64})/post/${code}(?:/media)?/?$`),
  new RegExp(`^/(_)/post/${code}/?$`),
  new RegExp(`^/t/${code}/?$`),
];

/** The post a threads.com or threads.net link names, or null when it names none. */
export function postOf(url: URL): ThreadsPostRef | null {
  if (!/(^|\.)threads\.(com|net)$/i.test(url.hostname)) return null;
  for (const path of postPaths) {
    const match = path.exec(url.pathname);
    if (match === null) continue;
    return match.length === 3 ? { user: match[1]!, code: match[2]! } : { user: "_", code: match[1]! };
  }
  return null;
}

/** The post's page on threads.com, which threads.net links lead to too. */
export function postPage(ref: ThreadsPostRef): URL {
  return new URL(`https://www.threads.com/@${ref.user}/post/${ref.code}`);
}
