// What a cobalt client asks with `POST /`: cobalt 11's request body (test/fakes/cobalt-clients/
// PROVENANCE.md), read more leniently than cobalt does where live clients need it. cobalt's object is
// strict; this one ignores keys it does not know, so a client of an older or newer cobalt (the
// Raycast extension sends `twitterGif` and `tiktokH265`, names cobalt 11 dropped) is answered, not
// refused with `invalid_body`.
import { z } from "zod";

const languageTag = z.string().min(2).max(8).regex(/^[0-9a-zA-Z-]+$/);

/** The body as cobalt 11 defines it, values and defaults alike, less its strictness. */
const CobaltBody = z.object({
  url: z.string().min(1),
  audioBitrate: z.enum(["320", "256", "128", "96", "64", "8"]).default("128"),
  // `m4a` beside cobalt's values: the sound it makes of `best` when it copies it, which we make too.
  audioFormat: z.enum(["best", "mp3", "ogg", "wav", "opus", "m4a"]).default("mp3"),
  downloadMode: z.enum(["auto", "audio", "mute"]).default("auto"),
  filenameStyle: z.enum(["classic", "pretty", "basic", "nerdy"]).default("basic"),
  youtubeVideoCodec: z.enum(["h264", "av1", "vp9"]).default("h264"),
  youtubeVideoContainer: z.enum(["auto", "mp4", "webm", "mkv"]).default("auto"),
  videoQuality: z.enum(["max", "4320", "2160", "1440", "1080", "720", "480", "360", "240", "144"]).default("1080"),
  localProcessing: z.enum(["disabled", "preferred", "forced"]).default("disabled"),
  youtubeDubLang: languageTag.optional(),
  subtitleLang: languageTag.optional(),
  disableMetadata: z.boolean().default(false),
  allowH265: z.boolean().default(false),
  convertGif: z.boolean().default(true),
  tiktokFullAudio: z.boolean().default(false),
  alwaysProxy: z.boolean().default(false),
  youtubeHLS: z.boolean().default(false),
  youtubeBetterAudio: z.boolean().default(false),
});

export type CobaltRequest = z.infer<typeof CobaltBody>;

/** cobalt 10's names for what cobalt 11 calls otherwise: the older name is taken when the newer one is absent. */
const olderNames: Record<string, string> = { twitterGif: "convertGif", tiktokH265: "allowH265" };

/**
 * The request a body asks, or null when it is not one (cobalt's `invalid_body`). A boolean
 * `localProcessing` is read as cobalt itself still reads it: true is `preferred`, false `disabled`.
 */
export function readCobaltRequest(body: unknown): CobaltRequest | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const given: Record<string, unknown> = { ...body };
  for (const [older, newer] of Object.entries(olderNames)) {
    if (older in given && !(newer in given)) given[newer] = given[older];
  }
  if (typeof given.localProcessing === "boolean") {
    given.localProcessing = given.localProcessing ? "preferred" : "disabled";
  }
  const parsed = CobaltBody.safeParse(given);
  return parsed.success ? parsed.data : null;
}

/** `Accept` and `Content-Type` as cobalt takes them: `application/json`, optionally with `; charset=utf-8`. */
export const JSON_MEDIA_TYPE = /^application\/json(; charset=utf-8)?$/;
