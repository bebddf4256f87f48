// An X video's captions. X carries them, where a video has them, in the video's HLS master playlist (the post's
// `application/x-mpegURL` variant): a subtitle rendition (`#EXT-X-MEDIA:TYPE=SUBTITLES`, LANGUAGE as X writes it,
// `CHARACTERISTICS` naming `twitter.auto-generated` for its speech recognition's) whose media playlist lists
// WebVTT segments, as yt-dlp's Twitter extractor reads them (`_extract_m3u8_formats_and_subtitles`). The reader
// fetches the master, the chosen rendition's playlist and its segments with its own client to X's video host
// (the readers' egress policy at every hop, the master on X's media hosts as a relayed file is), within bounds of
// count, bytes and time, and joins the segments' cues (media/vtt-segments.ts). A transcript reads them.
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import { assertDirectUrl } from "../../http/direct-hosts.ts";
import { cuesToVtt } from "../../media/cues.ts";
import { mediaSegments, type SubtitleRendition, subtitleRenditions } from "../../media/hls-subtitles.ts";
import { joinVttSegments } from "../../media/vtt-segments.ts";
import type { Outbound } from "../../net/outbound.ts";
import type { CaptionText } from "../source.ts";
import { chooseTranscriptTrack } from "../tools/ytdlp/subtitles.ts";

/** A master or media playlist is a few KB; the bound keeps one that never ends from filling memory. */
const MAX_PLAYLIST_BYTES = 2 ** 20;
/** X writes a track as one segment or a few; 600 is five hours of 30-second segments. */
export const MAX_CAPTION_SEGMENTS = 600;
/** All of a track's segments together: hours of speech are a few hundred KB of WebVTT. */
const MAX_TRACK_BYTES = 8 * 2 ** 20;
/** The whole of it, playlists and segments (one at a time), each exchange bounded by the client's own timeout too. */
export const CAPTIONS_TIMEOUT_MS = 60_000;
/** The characteristic X's manifest gives a track its speech recognition made. */
const AUTO_GENERATED = "twitter.auto-generated";

type Track = SubtitleRendition & { auto: boolean };

/**
 * `(playlist, lang, signal)`: the track of `lang` (null: the first the master lists) of the video whose HLS master
 * is `playlist`; 404 `no_transcript` for no playlist or a master without subtitles, 400 naming the languages it has.
 */
export function xCaptions(outbound: Outbound) {
  async function playlistText(url: URL, signal: AbortSignal, what: string): Promise<string> {
    const answer = await outbound.text({ url, maxBytes: MAX_PLAYLIST_BYTES, signal });
    if (answer.text === null) {
      throw upstreamFailed(`X's video host answered ${answer.status} instead of the video's ${what}; try again later.`);
    }
    if (!answer.text.replace(/^\uFEFF/, "").startsWith("#EXTM3U")) {
      throw upstreamFailed(`X's video host answered with something that is not the video's ${what}; try again later.`);
    }
    return answer.text;
  }

  /** Each segment's text, one at a time, all of them within MAX_TRACK_BYTES. */
  async function segmentTexts(segments: readonly URL[], signal: AbortSignal): Promise<string[]> {
    if (segments.length > MAX_CAPTION_SEGMENTS) {
      throw new ApiError(
        "source_too_large",
        `The video's captions come in ${segments.length} segments, more than the ${MAX_CAPTION_SEGMENTS} this server reads.`,
      );
    }
    const texts: string[] = [];
    let left = MAX_TRACK_BYTES;
    for (const url of segments) {
      const answer = await outbound.text({ url, maxBytes: left, signal }).catch((error: unknown) => {
        if (!(error instanceof ApiError) || error.code !== "source_too_large") throw error;
        throw new ApiError("source_too_large", `The video's captions are larger than ${MAX_TRACK_BYTES} bytes.`);
      });
      if (answer.text === null) {
        throw upstreamFailed(`X's video host answered ${answer.status} instead of a part of the video's captions.`);
      }
      left -= new TextEncoder().encode(answer.text).length;
      texts.push(answer.text);
    }
    return texts;
  }

  async function read(playlist: string | null, lang: string | null, signal: AbortSignal): Promise<CaptionText> {
    const master = playlist === null ? null : new URL(playlist);
    if (master !== null) assertDirectUrl(master, "The video's playlist");
    const renditions = master === null
      ? []
      : subtitleRenditions(await playlistText(master, signal, "playlist"), master);
    const tracks: Track[] = renditions.map((each) => ({
      ...each,
      auto: each.characteristics.includes(AUTO_GENERATED),
    }));
    const track = chooseTranscriptTrack(tracks, lang);
    const segments = mediaSegments(await playlistText(track.url, signal, "captions' playlist"), track.url);
    const cues = joinVttSegments(await segmentTexts(segments, signal));
    return { lang: track.lang, auto: track.auto, format: "vtt", text: cuesToVtt(cues) };
  }

  return async (playlist: string | null, lang: string | null, signal: AbortSignal): Promise<CaptionText> => {
    const deadline = AbortSignal.timeout(CAPTIONS_TIMEOUT_MS);
    try {
      return await read(playlist, lang, AbortSignal.any([signal, deadline]));
    } catch (error) {
      if (!deadline.aborted || signal.aborted) throw error;
      throw upstreamFailed(
        `X's video host did not send the video's captions within ${CAPTIONS_TIMEOUT_MS / 1000} s; try again later.`,
        { cause: error },
      );
    }
  };
}
