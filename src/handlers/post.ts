// GET /api/v1/post?url=: the `post` verb (operations/post.ts) for the key that asks, with the
// record's signed download links.
import { withDownloadUrls } from "../operations/download-links.ts";
import type { ApiHandler } from "../auth/api-context.ts";
import { json } from "../http/json-response.ts";
import { parseQuery, PostQuery } from "../http/query.ts";
import { slotHolder } from "../limits/slots.ts";
import { type PostDeps, postRecord } from "../operations/post.ts";

export function postHandler(deps: PostDeps): ApiHandler {
  return async (ctx) =>
    json(
      await withDownloadUrls(
        await postRecord(deps, parseQuery(PostQuery, ctx.url.searchParams).url, { key: slotHolder(ctx) }),
        ctx.links,
      ),
    );
}
