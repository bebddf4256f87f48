// A Bluesky video's captions: the WebVTT files its post's record names (`app.bsky.embed.video`'s
// `captions`, each `{lang, file}` with the file a blob of the author's repository), fetched from
// the author's PDS (pds.ts) with the reader's own client. A transcript reads one; a download
// embeds one as `subtitles` asks, ffmpeg fetching it through the egress gate as it fetches the video.
import { upstreamFailed } from "../../http/problem.ts";
import { withOriginOverride } from "../../http/direct-hosts.ts";
import type { SubtitleInput } from "../../media/ffmpeg.ts";
import type { CaptionText } from "../source.ts";
import { chooseTranscriptTrack, missingSubtitles } from "../tools/ytdlp/subtitles.ts";
import type { CachedPostsOptions } from "../cached-posts.ts";
import { pdsBlobs, type PdsOptions } from "./pds.ts";
import type { BlueskyPost } from "./post.ts";

/** The lexicon's bound on a caption file (`app.bsky.embed.video#caption`: 20 000 bytes). */
const maxCaptionBytes = 20_000;

export interface CaptionOptions extends PdsOptions, CachedPostsOptions {
  /** ORIGIN_OVERRIDES: where ffmpeg fetches a PDS's blob instead (tests, a local mirror). */
  originOverrides: ReadonlyMap<string, string>;
}

export function blueskyCaptions(options: CaptionOptions) {
  const blobUrl = pdsBlobs(options);
  return {
    /** The caption of `lang` (null: the first the record lists) as a transcript reads it; 404 `no_transcript` without one. */
    async text(post: BlueskyPost, lang: string | null, signal: AbortSignal): Promise<CaptionText> {
      const found = chooseTranscriptTrack(post.captions, lang);
      const url = await blobUrl(post.did, found.cid);
      const answer = await options.outbound.text({ url, maxBytes: maxCaptionBytes, signal });
      if (answer.text === null) {
        throw upstreamFailed(
          `The author's PDS answered ${answer.status} instead of the video's captions; try again later.`,
        );
      }
      return { lang: found.lang, auto: false, format: "vtt", text: answer.text };
    },

    /**
     * The caption a download of item `index` (0-based) embeds for `lang`, or undefined without `lang`. Only the post's
     * own video, its first item, has captions: another item, or a video without `lang`, is 400 naming those it has.
     */
    async embedded(post: BlueskyPost, lang: string | null, index: number): Promise<SubtitleInput | undefined> {
      if (lang === null) return undefined;
      const found = index === 0 ? post.captions.find((each) => each.lang === lang) : undefined;
      if (!found) throw missingSubtitles(lang, index === 0 ? post.captions.map((each) => each.lang) : []);
      const url = withOriginOverride(await blobUrl(post.did, found.cid), options.originOverrides);
      return { lang, input: { url: url.href, headers: {}, hls: false } };
    },
  };
}
