// The subtitle tracks of a yt-dlp entry: what the post record lists and what a download embeds.
// yt-dlp lists each language in several formats (json3, srv1-3, ttml, vtt); only the
// ones ffmpeg reads as subtitles count, so every language the record lists can be embedded.
import { ApiError } from "../../../http/problem.ts";
import type { SubtitleInput } from "../../../media/ffmpeg.ts";
import type { PostSubtitle } from "../../records.ts";
import type { SubtitleTrack, YtdlpEntry } from "./info.ts";

/** Formats ffmpeg 5.1 demuxes as text subtitles, best first (WebVTT keeps styling mov_text can hold). */
const readableExts = ["vtt", "srt", "ass", "ssa"];

/** The track of `lang` that ffmpeg reads best, or null. */
function readableTrack(tracks: readonly SubtitleTrack[] | undefined): (SubtitleTrack & { url: string }) | null {
  let best: (SubtitleTrack & { url: string }) | null = null;
  for (const track of tracks ?? []) {
    const rank = readableExts.indexOf(track.ext?.toLowerCase() ?? "");
    if (rank < 0 || !track.url || !/^https?:\/\//i.test(track.url)) continue;
    if (best === null || rank < readableExts.indexOf(best.ext!.toLowerCase())) best = { ...track, url: track.url };
  }
  return best;
}

/** Manual subtitles, then automatic captions, each language once per kind. */
function languages(entry: YtdlpEntry): { lang: string; auto: boolean; track: SubtitleTrack & { url: string } }[] {
  const kinds = [
    { auto: false, byLang: entry.subtitles ?? {} },
    { auto: true, byLang: entry.automatic_captions ?? {} },
  ];
  return kinds.flatMap(({ auto, byLang }) =>
    Object.entries(byLang).flatMap(([lang, tracks]) => {
      const track = readableTrack(tracks);
      return track ? [{ lang, auto, track }] : [];
    })
  );
}

export function subtitlesOf(entry: YtdlpEntry): PostSubtitle[] {
  return languages(entry).map(({ lang, auto, track }) => ({ lang, name: track.name?.trim() || null, auto }));
}

/**
 * The track a download embeds for `lang`: a manual one when the item has both kinds. A language
 * the item lacks is 400 naming the ones it has.
 */
export function chooseSubtitle(entry: YtdlpEntry, lang: string): SubtitleInput {
  const found = languages(entry).find((candidate) => candidate.lang === lang);
  if (!found) throw missingSubtitles(lang, subtitlesOf(entry).map((s) => s.lang));
  // A track without headers of its own is fetched like the page's media.
  return {
    lang,
    input: { url: found.track.url, headers: found.track.http_headers ?? entry.http_headers ?? {}, hls: false },
  };
}

export function missingSubtitles(lang: string, available: readonly string[]): ApiError {
  const offered = [...new Set(available)];
  return new ApiError(
    "invalid_parameter",
    offered.length === 0
      ? `This item has no subtitles, so \`subtitles=${lang}\` cannot be embedded; leave \`subtitles\` out.`
      : `This item has no subtitles in "${lang}"; it has: ${offered.join(", ")}.`,
  );
}

/** The formats a transcript is read from (media/cues.ts), best first. */
const transcriptExts = ["vtt", "srt"];

/** The track a transcript is read from, with its format. */
export interface TranscriptTrack {
  lang: string;
  auto: boolean;
  url: string;
  headers: Record<string, string>;
  format: "vtt" | "srt";
}

/**
 * Of the tracks a transcript may read, the one of `lang`, or the first listed without `lang`; 404
 * `no_transcript` for a post with none, 400 naming the languages it has for one it lacks. Every
 * source that reads a post's tracks chooses with it, as `subtitles` chooses.
 */
export function chooseTranscriptTrack<Track extends { lang: string }>(
  listed: readonly Track[],
  lang: string | null,
): Track {
  if (listed.length === 0) {
    throw new ApiError(
      "no_transcript",
      "This post has no subtitles or automatic captions to read; its record's `subtitles` is empty.",
    );
  }
  const found = lang === null ? listed[0]! : listed.find((candidate) => candidate.lang === lang);
  if (!found) throw missingSubtitles(lang!, listed.map((each) => each.lang));
  return found;
}

/**
 * The track of `lang` a transcript reads, chosen as `subtitles` chooses (the post's own before
 * automatic captions), or the first listed without `lang`. A track yt-dlp reads as an HLS playlist
 * of WebVTT segments is not a file of cues, and is not read here (X's own reader reads X's: x/captions.ts).
 */
export function transcriptTrack(entry: YtdlpEntry, lang: string | null): TranscriptTrack {
  const listed = languages(entry).flatMap(({ lang: each, auto }) => {
    const kinds = auto ? entry.automatic_captions : entry.subtitles;
    const track = (kinds?.[each] ?? []).find((t) =>
      transcriptExts.includes(t.ext?.toLowerCase() ?? "") && t.url && !t.protocol?.startsWith("m3u8")
    );
    return track ? [{ lang: each, auto, track }] : [];
  });
  const tracks = [...Object.values(entry.subtitles ?? {}), ...Object.values(entry.automatic_captions ?? {})].flat();
  if (listed.length === 0 && tracks.some((track) => track.protocol?.startsWith("m3u8"))) {
    throw new ApiError(
      "no_transcript",
      "This post's captions come only as an HLS stream of WebVTT segments, which the service reads only for the platforms it reads itself (docs/api.md, Transcripts).",
    );
  }
  const found = chooseTranscriptTrack(listed, lang);
  return {
    lang: found.lang,
    auto: found.auto,
    url: found.track.url!,
    headers: found.track.http_headers ?? entry.http_headers ?? {},
    format: found.track.ext!.toLowerCase() as TranscriptTrack["format"],
  };
}
