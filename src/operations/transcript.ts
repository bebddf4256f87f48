// The words of a post (docs/api.md, Transcripts): the caption track its source reads itself
// (a reader of the service's own, through its client), or else the subtitle or automatic-caption track yt-dlp lists
// for it, fetched through the readers' egress policy as any page a reader reads; either chosen as
// `subtitles` chooses, read into cues (media/cues.ts) and written in the format asked for. The
// transcript operation sends one; a job's archive puts one beside each item's files.
import { ApiError } from "../http/problem.ts";
import type { SlotHolder } from "../limits/slots.ts";
import { type Cue, cuesToSrt, cuesToText, cuesToVtt, parseSrt, parseVtt } from "../media/cues.ts";
import type { Outbound } from "../net/outbound.ts";
import type { LinkResolver } from "../platforms/short-links.ts";
import type { SourceOf } from "../platforms/sources.ts";
import type { PageClient } from "../platforms/tools/ytdlp/client.ts";
import { mainEntry, type YtdlpInfo } from "../platforms/tools/ytdlp/info.ts";
import type { CaptionText } from "../platforms/source.ts";
import { transcriptTrack } from "../platforms/tools/ytdlp/subtitles.ts";
import { type AskDeps, asking, requirePlatform, type SupportedSites } from "./ask.ts";

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

/** A post's transcript: the track's language, whether it is the platform's automatic captions, its cues. */
export interface Transcript {
  lang: string;
  auto: boolean;
  cues: Cue[];
}

export type TranscriptFormat = "json" | "text" | "srt" | "vtt";

/** Each format's media type and body; `json` is the cues with the track's language and kind. */
export const transcriptFormats: Readonly<
  Record<TranscriptFormat, { type: string; body: (transcript: Transcript) => string }>
> = {
  json: { type: "application/json", body: (transcript) => JSON.stringify(transcript) },
  text: { type: "text/plain; charset=utf-8", body: ({ cues }) => cuesToText(cues) },
  srt: { type: "application/x-subrip; charset=utf-8", body: ({ cues }) => cuesToSrt(cues) },
  vtt: { type: "text/vtt; charset=utf-8", body: ({ cues }) => cuesToVtt(cues) },
};

/**
 * The transcript of the post at `link` in `lang` (null: the first language its record lists). The
 * post is read as `post` reads it, with an extraction slot of `holder`; 404 `no_transcript` for a
 * post with no track, 400 naming the languages it has for one it lacks.
 */
export async function transcriptOf(
  deps: TranscriptDeps,
  link: URL,
  lang: string | null,
  holder: SlotHolder,
  signal: AbortSignal,
): Promise<Transcript> {
  const url = await deps.resolveLink(link, signal);
  const post = { url, platform: await requirePlatform(url, deps) };
  const source = deps.sources(post);
  // The post read as `post` reads it, with the tool's slot where its source extracts.
  const track = source.captions
    ? await asking(deps, source, post, holder, () => source.captions!(post, lang, signal))
    : await ytdlpTrack(deps, await asking(deps, source, post, holder, () => deps.pages.info(url)), lang, signal);
  const cues = track.format === "srt" ? parseSrt(track.text) : parseVtt(track.text);
  return { lang: track.lang, auto: track.auto, cues };
}

/** The track of `lang` of yt-dlp's description, fetched through the readers' egress policy. */
async function ytdlpTrack(
  deps: TranscriptDeps,
  info: YtdlpInfo,
  lang: string | null,
  signal: AbortSignal,
): Promise<CaptionText> {
  const track = transcriptTrack(mainEntry(info), lang);
  const answer = await deps.subtitleFiles.text({
    url: new URL(track.url),
    headers: track.headers,
    maxBytes: MAX_TRACK_BYTES,
    signal,
  });
  if (answer.text === null) {
    throw new ApiError("upstream_failed", `The subtitle track answered with status ${answer.status}; try again later.`);
  }
  return { lang: track.lang, auto: track.auto, format: track.format, text: answer.text };
}
