// The query parameters of every operation, as zod schemas. The handlers parse their query through
// these (parseQuery) and the OpenAPI document shows the same schemas, bounds and patterns
// included, so what is checked and what is documented are one thing. Every parameter is bounded
// in length and refuses control characters (a NUL would otherwise reach a child's argv), but for
// `filename`, which only names the file and is sanitized where it is used (media/filename.ts).
// To add a parameter, add a field: parseQuery and the document pick it up.
import { z } from "zod";
import { DIRECT_HOSTS } from "./direct-hosts.ts";
import { nearestName } from "../util/nearest-name.ts";
import { ApiError } from "./problem.ts";
import { clipTimeQuery } from "./clip-range.ts";

export const MAX_URL_LENGTH = 4096;
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;
const indexIsAWholeNumber =
  "`index` must be a whole number from 1, in digits only: the number of an item in the record's `media` list, such as `index=2`.";

/** An absolute http(s) link, handed to the handler as a URL. */
function urlParam(description: string) {
  return z
    .string()
    .trim()
    .max(MAX_URL_LENGTH, `The \`url\` parameter is longer than ${MAX_URL_LENGTH} characters.`)
    .regex(NO_CONTROL_CHARACTERS, "The `url` parameter holds control characters; percent-encode the link.")
    .pipe(
      z.url({
        protocol: /^https?$/,
        error: "The `url` parameter must be an absolute http:// or https:// link; pass a full https:// link.",
      }),
    )
    .transform((value) => new URL(value))
    .meta({ format: "uri" })
    .describe(`${description}. Absolute http(s) URL, percent-encoded, at most ${MAX_URL_LENGTH} characters`);
}

/** A parameter of at most `max` characters. */
function boundedText(name: string, max: number) {
  return z.string().max(max, `The \`${name}\` parameter is longer than ${max} characters.`);
}

/** A free-text parameter: at most `max` characters, no control characters. */
function textParam(name: string, max: number, pattern = NO_CONTROL_CHARACTERS, what = "control characters") {
  return boundedText(name, max).regex(pattern, `The \`${name}\` parameter may not hold ${what}.`);
}

export const PostQuery = z.object({
  url: urlParam(
    "Post or video URL of a supported platform (the OpenAPI document names them from the platform table)",
  ),
});

export const TweetQuery = z.object({
  url: urlParam("URL of a post on x.com or twitter.com (also mobile. and www.); the status id is read from it"),
});

export const DownloadQuery = z.object({
  url: urlParam(
    `A direct media URL on ${
      [...DIRECT_HOSTS].join(", ")
    } (direct mode: relayed as is, Range passed through), or a page link of a supported platform (page mode: fetched with yt-dlp and remuxed; a photo post's item is its file as the platform serves it)`,
  ),
  format: textParam("format", 200, /^[\x20-\x7e]*$/, "anything but printable ASCII")
    .trim()
    .optional()
    .describe(
      "A yt-dlp format selector, for example a `formatId` of the post record or `bestvideo[height<=720]+bestaudio`; for X post links a variant's `qualityLabel` or `formatId`",
    ),
  audio: z
    .enum(
      ["mp3", "m4a"],
      "`audio` takes `mp3` (MP3 at 320 kbps) or `m4a` (the source's AAC sound, not re-encoded); leave it out for MP4.",
    )
    .optional()
    .describe(
      "`mp3` sends the audio alone as MP3 at 320 kbps CBR; `m4a` sends the source's AAC sound as it is, in an M4A (fragmented MP4) file, and is 400 `format_not_available` when the sound is not AAC; any other value is 400",
    ),
  index: z
    // Digits only, no sign, no leading zero: `0x1`, `+1`, `01`, ` 1` and `1\n` are refused, not read as 1.
    .preprocess(
      (value) => (typeof value === "string" && /^[1-9][0-9]*$/.test(value) ? Number(value) : value),
      z.number(indexIsAWholeNumber).min(1, indexIsAWholeNumber).max(1000, "`index` is at most 1000.").int(
        indexIsAWholeNumber,
      ),
    )
    .optional()
    .describe(
      "Which item of the post to send, counting from 1 in the record's `media` list: a photo or a video relayed as it is when it has a direct `url`, else through page mode. Past the last item is 400 saying how many there are. Default: on X the post's first video, else its first photo; elsewhere the first item",
    ),
  subtitles: textParam("subtitles", 35, /^[A-Za-z0-9_-]*$/, "anything but letters, digits, `-` and `_`")
    .min(1)
    .optional()
    .describe(
      "Page mode, MP4 only: embed the subtitle track of this language (a `lang` of the post record's `subtitles`) as a mov_text stream tagged with its ISO 639-2 language. A language the item lacks is 400 naming the ones it has; with `audio=mp3` it is 400",
    ),
  start: clipTimeQuery("start").optional(),
  end: clipTimeQuery("end").optional(),
  cut: z
    .enum(["keyframe", "exact"], "`cut` takes `keyframe` (the default) or `exact`.")
    .optional()
    .describe(
      "With `start` or `end`: `keyframe` (default) cuts at the key frame at or before `start` without re-encoding (the response's `Clip-Start` and `Clip-Duration` say what was sent); `exact` re-encodes to cut at the very times, where the operator allows it (CLIP_EXACT_CUTS), else 400",
    ),
  mute: z
    .enum(["true"], "`mute` takes `true` (the video without its sound); leave it out to keep the sound.")
    .optional()
    .describe(
      "`true` sends the video without its sound: ffmpeg's remux of the file (page mode) with the video stream alone, never re-encoded; with `audio`, or of a photo, it is 400",
    ),
  filename: boundedText("filename", 255)
    .optional()
    .describe(
      "Suggested file name, such as a post's title. It is sanitized (line breaks and tabs become spaces; path separators, other control characters and reserved punctuation become `_`; format characters such as zero-width spaces and bidirectional overrides, and noncharacters, are removed; at most 200 bytes) and given the extension of what is sent. Default: `<platform>_<id>.<ext>` in page mode, the URL's last path segment in direct mode",
    ),
});

/**
 * 400 `unknown_parameter` for a parameter the operation does not take: a misspelled one
 * (`fromat=worst`) would otherwise be ignored and the caller sent a file they did not ask for.
 */
function refuseUnknown(names: Iterable<string>, known: readonly string[]): void {
  for (const name of names) {
    if (known.includes(name)) continue;
    const nearest = nearestName(name, known);
    const hint = nearest === null ? "" : ` Did you mean \`${nearest}\`?`;
    throw new ApiError(
      "unknown_parameter",
      `This operation takes no \`${name.slice(0, 64)}\` parameter.${hint} It takes: ${
        known.map((each) => `\`${each}\``).join(", ")
      }.`,
    );
  }
}

/**
 * The query as `schema` parses it; else 400: `unknown_parameter` for a name the schema lacks,
 * `invalid_url` for the link, `invalid_parameter` for the rest, with the schema's own words. An
 * empty parameter counts as absent, and of a repeated one the first counts.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: URLSearchParams): z.output<S> {
  refuseUnknown(query.keys(), Object.keys(schema.shape));
  const given: Record<string, string> = {};
  for (const [name, value] of query) if (value !== "" && !(name in given)) given[name] = value;
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0]);
  if (name === "url") {
    const detail = issue.code === "invalid_type"
      ? "Pass the page or media link in the `url` query parameter."
      : issue.message;
    throw new ApiError("invalid_url", detail);
  }
  // A parameter given in a form the schema cannot read is also an invalid_type: only an absent one is missing.
  throw new ApiError(
    "invalid_parameter",
    issue.code === "invalid_type" && !(name in given) ? `The \`${name}\` parameter is required.` : issue.message,
  );
}

export const TranscriptQuery = z.object({
  url: urlParam(
    "Post or video URL of a supported platform whose subtitles or automatic captions the service reads (those yt-dlp lists, or a video's caption files or HLS subtitle stream its platform's own reader reads)",
  ),
  lang: textParam("lang", 35, /^[A-Za-z0-9_-]*$/, "anything but letters, digits, `-` and `_`")
    .min(1)
    .optional()
    .describe(
      "The language, a `lang` of the post record's `subtitles` (its own subtitles before automatic captions of the same language), or of the video's own captions where its platform's reader finds them in its stream, which the record does not list (docs/api.md, Transcripts). A language the post lacks is 400 naming the ones it has. Default: the first listed",
    ),
  format: z
    .enum(["json", "text", "srt", "vtt"], "`format` takes `json`, `text`, `srt` or `vtt`.")
    .optional()
    .describe(
      "`json` (default): `{lang, auto, cues: [{start, end, text}]}`, times in seconds; `text`: the words as plain paragraphs (a new one where the speech pauses); `srt` and `vtt`: the cues as SubRip or WebVTT",
    ),
});
