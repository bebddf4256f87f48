// The post data a Threads post page carries for its web client: the Relay preload of
// `BarcelonaPostPageDirectQuery` in one of the page's `<script type="application/json" data-sjs>`
// blocks (a page has several that name the query, one of which holds the posts), read as data,
// never run, as cobalt's pull request #1558 and yt-dlp's pull requests read it. Its
// `__bbox.result` is what the web client's GraphQL query answers: `{data: {data: {edges}}}`. Pure.

const scriptBlock = /<script\b([^>]*)>([\s\S]*?)<\/script>/g;
/** Deeper than any preload nests (about 12); a page built to nest deeper is not walked further. */
const maxDepth = 64;

/** Every preloaded query result of the page's data blocks that name the post page's query, in page order. */
export function relayResultsOf(html: string): unknown[] {
  const results: unknown[] = [];
  for (const [, attributes = "", body = ""] of html.matchAll(scriptBlock)) {
    const isData = /\bdata-sjs\b/.test(attributes) && /type="application\/json"/.test(attributes);
    if (!isData || !body.includes("BarcelonaPostPage")) continue;
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch {
      continue;
    }
    collectResults(data, results, 0);
  }
  return results;
}

/** Each `__bbox.result` under `value`, depth first. */
function collectResults(value: unknown, into: unknown[], depth: number): void {
  if (depth > maxDepth || typeof value !== "object" || value === null) return;
  const box = (value as { __bbox?: unknown }).__bbox;
  if (typeof box === "object" && box !== null && "result" in box) into.push(box.result);
  for (const each of Array.isArray(value) ? value : Object.values(value)) collectResults(each, into, depth + 1);
}
