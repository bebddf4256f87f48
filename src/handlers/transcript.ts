// GET /api/v1/transcript?url=&lang=&format=: the words of a post, from the subtitle or
// automatic-caption track yt-dlp lists for it (chosen as `subtitles` chooses), read into cues
// (media/cues.ts) and sent as JSON cues, plain paragraphs, SRT or WebVTT. The track is fetched
// through the readers' egress policy, as any page a reader reads.
import type { ApiHandler } from "../auth/api-context.ts";
import { ApiError } from "../http/problem.ts";
import { parseQuery, TranscriptQuery } from "../http/query.ts";
import { slotHolder } from "../limits/slots.ts";
import { type Cue, cuesToSrt, cuesToText, cuesToVtt, parseSrt, parseVtt } from "../media/cues.ts";
import type { Outbound } from "../net/outbound.ts";
import { type AskDeps, asking, requirePlatform, type SupportedSites } from "../operations/ask.ts";
import type { LinkResolver } from "../platforms/short-links.ts";
import type { SourceOf } from "../platforms/sources.ts";
import type { PageClient } from "../platforms/tools/ytdlp/client.ts";
import { mainEntry } from "../platforms/tools/ytdlp/info.ts";
import { transcriptTrack } from "../platforms/tools/ytdlp/subtitles.ts";

export interface TranscriptDeps extends AskDeps, SupportedSites {
  sources: SourceOf;
  resolveLink: LinkResolver;
  /** yt-dlp's descriptions, which list a post's tracks with their links. */
  pages: PageClient;
  /** The client a track is fetched with, through the readers' egress policy. */
  subtitleFiles: Outbound;
}

/** How long a subtitle host may take to send its file. */
export const SUBTITLE_TIMEOUT_MS = 15_000;

/** The most a subtitle file may weigh: hours of speech are a few hundred KiB. */
const MAX_TRACK_BYTES = 8 * 1024 * 1024;

const formats = {
  json: { type: "application/json", body: (cues: readonly Cue[], head: object) => JSON.stringify({ ...head, cues }) },
  text: { type: "text/plain; charset=utf-8", body: cuesToText },
  srt: { type: "application/x-subrip; charset=utf-8", body: cuesToSrt },
  vtt: { type: "text/vtt; charset=utf-8", body: cuesToVtt },
} as const;

export function transcriptHandler(deps: TranscriptDeps): ApiHandler {
  return async (ctx) => {
    const query = parseQuery(TranscriptQuery, ctx.url.searchParams);
    const url = await deps.resolveLink(query.url, ctx.request.signal);
    const link = { url, platform: await requirePlatform(url, deps) };
    // The same description the post record is made from, read with the tool's slot as `post` reads it.
    const info = await asking(deps, deps.sources(link), link, slotHolder(ctx), () => deps.pages.info(url));
    const track = transcriptTrack(mainEntry(info), query.lang ?? null);
    const answer = await deps.subtitleFiles.text({
      url: new URL(track.url),
      headers: track.headers,
      maxBytes: MAX_TRACK_BYTES,
      signal: ctx.request.signal,
    });
    if (answer.text === null) {
      throw new ApiError(
        "upstream_failed",
        `The subtitle track answered with status ${answer.status}; try again later.`,
      );
    }
    const cues = track.format === "srt" ? parseSrt(answer.text) : parseVtt(answer.text);
    const format = formats[query.format ?? "json"];
    return new Response(format.body(cues, { lang: track.lang, auto: track.auto }), {
      headers: { "content-type": format.type, "content-language": track.lang },
    });
  };
}
