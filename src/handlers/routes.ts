// The routes of the service's own verbs (docs/api.md): `post`, `tweet`, `download` and `usage`,
// each declared once for the router and the OpenAPI document.
import { z } from "zod";
import type { ApiHandler } from "../auth/api-context.ts";
import { DownloadQuery, PostQuery, TranscriptQuery, TweetQuery } from "../http/query.ts";
import { fileContent, jsonAnswer, rateLimitHeadersFor, requestIdHeader, required } from "../http/openapi-parts.ts";
import type { RouteDeclaration } from "../http/route.ts";
import { usageHandler } from "../limits/usage.ts";
import type { DownloadDeps } from "../operations/download.ts";
import type { PostDeps } from "../operations/post.ts";
import { platformList } from "../platforms/list.ts";
import { photoPostsText, postUrlText } from "../platforms/list-text.ts";
import type { TweetClient } from "../platforms/x/client.ts";
import { downloadHandler } from "./download.ts";
import { postHandler } from "./post.ts";
import { tweetHandler } from "./tweet.ts";
import type { TranscriptDeps } from "../operations/transcript.ts";
import { transcriptHandler } from "./transcript.ts";

export interface OperationsDeps extends PostDeps, DownloadDeps, TranscriptDeps {
  tweets: TweetClient;
}

const fileHeaders = {
  "Content-Disposition": {
    description: "`attachment` with `filename=` (ASCII fallback) and `filename*=UTF-8''...` (RFC 6266)",
    schema: { type: "string" },
  },
  "Content-Length": {
    description: "Body size in bytes; sent whenever the size is known before the first byte (always in direct mode)",
    schema: { type: "integer" },
  },
  "Accept-Ranges": {
    description: "`bytes` when the media host supports ranges (direct mode)",
    schema: { type: "string" },
  },
};
const estimatedLengthHeader = {
  "Estimated-Content-Length": {
    description:
      "Page mode: an estimate of the body size in bytes, sent when the source says the sizes of the files it remuxes (their sum; for MP3 the length at 320 kbps). For progress bars only: the body may be somewhat larger or smaller",
    schema: { type: "integer" },
  },
};
const clipHeaders = {
  "Clip-Start": {
    description:
      "With `start` or `end`: where the clip sent really starts, in seconds of the media (three decimals). A key-frame cut starts at the key frame at or before `start`; an exact cut (`cut=exact`) and sound start at `start`",
    schema: { type: "string" },
  },
  "Clip-Duration": {
    description:
      "With `start` or `end`: how long the clip sent is, in seconds (three decimals), from `Clip-Start` to `end` (or the media's end); absent when the source does not say its length and no `end` was given",
    schema: { type: "string" },
  },
};

const transcriptSchema = {
  type: "object",
  required: ["lang", "auto", "cues"],
  properties: {
    lang: { type: "string", description: "The track's language, as the post record's `subtitles` names it" },
    auto: { type: "boolean", description: "True for the platform's automatic captions" },
    cues: {
      type: "array",
      items: {
        type: "object",
        required: ["start", "end", "text"],
        properties: {
          start: { type: "number", description: "Seconds from the media's start" },
          end: { type: "number" },
          text: { type: "string", description: "The words, lines joined with a line break, markup removed" },
        },
      },
    },
  },
};

// From the platform modules (http/ sits below platforms/, so the query schema cannot name them itself).
const postUrlDescription = postUrlText(platformList);

export const operationRoutes: RouteDeclaration<OperationsDeps, ApiHandler>[] = [
  {
    method: "GET",
    path: "/api/v1/post",
    operationId: "getPost",
    summary: "Post record for a URL of any supported platform",
    description:
      "Returns the platform-independent record of a post or video. Every field is present; an unknown value is null and lists are always arrays. When `needsServerProcessing` is true, fetch the media with /api/v1/download in page mode, passing a variant's `formatId` as `format`. `media` lists every item of the post in the platform's order (a carousel of photos and videos, a gallery, a slideshow, several videos on one page, X's photos and videos); download one with `index`. " +
      photoPostsText(platformList) +
      " A post with no item to download and no text is never 200: 404 `no_media` when the platform showed it without media (or a page lists nothing), 502 `upstream_blocked` for a login wall, 502 `upstream_failed` when the media tool could not reach the site.",
    query: PostQuery.extend({ url: PostQuery.shape.url.describe(postUrlDescription) }),
    answers: jsonAnswer(200, "PostRecord", "The post record"),
    errors: [
      "invalid_url",
      "unsupported_platform",
      "unsupported_url",
      "not_found",
      "post_unavailable",
      "no_media",
      "too_many_extractions",
      "upstream_failed",
      "upstream_blocked",
      "upstream_not_allowed",
      "source_too_large",
      "memory_exceeded",
      "tool_missing",
      "upstream_timeout",
    ],
    handler: postHandler,
  },
  {
    method: "GET",
    path: "/api/v1/tweet",
    operationId: "getTweet",
    summary: "Rich record of an X post, with direct media URLs",
    description:
      "For x.com and twitter.com links only. Video variants carry direct media URLs that /api/v1/download relays in direct mode. A post without video has `videoVariants: []`; an animated GIF has `isAnimatedGif: true` and its MP4 variant. These fields describe the first video; `media` lists every photo, video and GIF in order.",
    query: TweetQuery,
    answers: jsonAnswer(200, "TweetRecord", "The tweet record"),
    errors: ["invalid_url", "not_found", "post_unavailable", "upstream_failed"],
    handler: (deps) => tweetHandler(deps.tweets),
  },
  {
    method: "GET",
    path: "/api/v1/download",
    operationId: "download",
    summary: "Stream a media file",
    description:
      "Direct mode relays a file from X's media hosts under the service's file name and passes `Range` through, so downloads resume (206 with Content-Range). Page mode fetches the media of a supported platform page with yt-dlp and streams it remuxed as fragmented MP4 (or MP3 with `audio=mp3`), with `Estimated-Content-Length` when the source says the sizes. `index` picks one item of a post with several (the record's `media`), `subtitles` embeds a subtitle track, `start` and `end` send a clip (a part of the video or sound, made in page mode: a direct link becomes a remux when cut; `Clip-Start` and `Clip-Duration` say what was sent). An item of a photo post (read with gallery-dl) is relayed as the platform's media host serves it, with its own content type and extension, `Range` passed through. Nothing is stored on the service. A transfer that fails after the first byte is cut off (a chunked body without its end, or fewer bytes than Content-Length), never ended as if complete; before it, 502 `source_not_streamable` says that retrying will not help.",
    query: DownloadQuery,
    answers: {
      200: {
        description: "The whole file",
        headers: {
          ...rateLimitHeadersFor("admitted"),
          ...requestIdHeader,
          ...required({ "Content-Disposition": fileHeaders["Content-Disposition"] }),
          "Content-Length": fileHeaders["Content-Length"],
          "Accept-Ranges": fileHeaders["Accept-Ranges"],
          ...estimatedLengthHeader,
          ...clipHeaders,
        },
        content: fileContent(),
      },
      206: {
        description: "The requested part of the file (direct mode, with a Range header)",
        headers: {
          ...rateLimitHeadersFor("admitted"),
          ...requestIdHeader,
          ...required(fileHeaders),
          "Content-Range": {
            description: "`bytes start-end/size` of the part sent",
            required: true,
            schema: { type: "string" },
          },
        },
        content: fileContent(),
      },
    },
    errors: [
      "invalid_url",
      "invalid_parameter",
      "unsupported_url",
      "format_not_available",
      "format_not_streamable",
      "host_not_allowed",
      "not_found",
      "post_unavailable",
      "no_media",
      "file_too_large",
      "range_not_satisfiable",
      "too_many_downloads",
      "too_many_extractions",
      "upstream_failed",
      "upstream_blocked",
      "tool_exited",
      "source_not_streamable",
      "upstream_not_allowed",
      "source_too_large",
      "memory_exceeded",
      "tool_missing",
      "upstream_timeout",
    ],
    handler: downloadHandler,
  },
  {
    method: "GET",
    path: "/api/v1/transcript",
    operationId: "getTranscript",
    summary: "The words of a post, from its subtitles or automatic captions",
    description:
      "The post's subtitle or automatic-caption track (the ones yt-dlp lists, or a video's own captions where the service's own reader of its platform reads them: its caption files, or the subtitle stream of its HLS playlist; the post record's `subtitles` names their languages where the record has them; a track yt-dlp lists only as an HLS stream is not read; docs/api.md, Transcripts, says which platforms have which), chosen as `download`'s `subtitles` chooses it, sent as timed cues (`json`), plain paragraphs (`text`), SubRip (`srt`) or WebVTT (`vtt`). A post with none is 404 `no_transcript`; a language it lacks is 400 naming those it has.",
    query: TranscriptQuery,
    answers: {
      200: {
        description: "The transcript, in the format asked for; `Content-Language` is the track's language",
        headers: { ...rateLimitHeadersFor("admitted"), ...requestIdHeader },
        content: {
          "application/json": { schema: transcriptSchema },
          "text/plain": { schema: { type: "string" } },
          "application/x-subrip": { schema: { type: "string" } },
          "text/vtt": { schema: { type: "string" } },
        },
      },
    },
    errors: [
      "invalid_url",
      "invalid_parameter",
      "unsupported_platform",
      "unsupported_url",
      "not_found",
      "post_unavailable",
      "no_transcript",
      "too_many_extractions",
      "upstream_failed",
      "upstream_blocked",
      "source_too_large",
      "tool_missing",
      "upstream_timeout",
    ],
    handler: transcriptHandler,
  },
  {
    method: "GET",
    path: "/api/v1/usage",
    operationId: "getUsage",
    summary: "What the calling key may still do",
    description: "The key's tier, limits and what is left of them. Counted like any other request.",
    answers: jsonAnswer(200, "UsageRecord", "The key's usage"),
    // It takes no query parameters.
    query: z.object({}),
    errors: [],
    handler: () => usageHandler,
  },
];
