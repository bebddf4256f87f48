// The subtitle renditions of an HLS master playlist (RFC 8216 4.3.4.1, `#EXT-X-MEDIA:TYPE=SUBTITLES`) and
// the segments of a media playlist, read as text: where a service reads a video's captions from its stream
// itself rather than handing the stream to ffmpeg. Every link is resolved against the playlist's own URL and
// must be http(s) (hls-playlists.ts `checkedLink`). Pure.
import { checkedLink } from "./hls-playlists.ts";

/** One `#EXT-X-MEDIA:TYPE=SUBTITLES` of a master playlist. */
export interface SubtitleRendition {
  /** `LANGUAGE`, as the playlist writes it (`en`, `en-US`); `und` when it names none, as yt-dlp keys it. */
  lang: string;
  name: string | null;
  /** `CHARACTERISTICS`, each a Uniform Type Identifier (`public.accessibility.transcribes-spoken-dialog`). */
  characteristics: string[];
  /** The rendition's media playlist. */
  url: URL;
}

// `NAME=value`, the value quoted (commas allowed inside) or not (RFC 8216 4.2).
const ATTRIBUTE = /([A-Z0-9-]+)=("[^"]*"|[^,]*)/g;

/** The attribute list after a tag's colon, names to values, quotes removed. */
function attributesOf(line: string): Map<string, string> {
  const list = line.slice(line.indexOf(":") + 1);
  return new Map([...list.matchAll(ATTRIBUTE)].map(([, name, value]) => [name!, value!.replace(/^"|"$/g, "")]));
}

const linesOf = (text: string) => text.replace(/^\uFEFF/, "").split(/\r?\n/).map((line) => line.trim());

/** The master's subtitle renditions that name a playlist, in its order; none for a media playlist. */
export function subtitleRenditions(master: string, base: URL): SubtitleRendition[] {
  return linesOf(master)
    .filter((line) => line.startsWith("#EXT-X-MEDIA:"))
    .map(attributesOf)
    .filter((attributes) => attributes.get("TYPE") === "SUBTITLES" && attributes.has("URI"))
    .map((attributes) => ({
      lang: attributes.get("LANGUAGE") || "und",
      name: attributes.get("NAME") || null,
      characteristics: (attributes.get("CHARACTERISTICS") ?? "").split(",").map((each) => each.trim()).filter(
        Boolean,
      ),
      url: checkedLink(attributes.get("URI")!, base),
    }));
}

/** The segments of a media playlist, in order: each line that is not a tag or blank. */
export function mediaSegments(playlist: string, base: URL): URL[] {
  return linesOf(playlist).filter((line) => line !== "" && !line.startsWith("#")).map((line) =>
    checkedLink(line, base)
  );
}
