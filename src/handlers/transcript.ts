// GET /api/v1/transcript?url=&lang=&format=: the words of a post (operations/transcript.ts) as JSON
// cues, plain paragraphs, SRT or WebVTT.
import type { ApiHandler } from "../auth/api-context.ts";
import { parseQuery, TranscriptQuery } from "../http/query.ts";
import { slotHolder } from "../limits/slots.ts";
import { type TranscriptDeps, transcriptFormats, transcriptOf } from "../operations/transcript.ts";

export function transcriptHandler(deps: TranscriptDeps): ApiHandler {
  return async (ctx) => {
    const query = parseQuery(TranscriptQuery, ctx.url.searchParams);
    const transcript = await transcriptOf(deps, query.url, query.lang ?? null, slotHolder(ctx), ctx.request.signal);
    const format = transcriptFormats[query.format ?? "json"];
    return new Response(format.body(transcript), {
      headers: { "content-type": format.type, "content-language": transcript.lang },
    });
  };
}
