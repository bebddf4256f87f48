// The checks every source makes of the item a download asks for, and of the file it names.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { assertDirectUrl } from "../http/direct-hosts.ts";
import { nameFromMediaUrl } from "../media/filename.ts";
import type { RelayPlan } from "../media/plan.ts";
import type { Wanted } from "./source.ts";
import { missingSubtitles } from "./tools/ytdlp/subtitles.ts";

/** 400 for an index past the post's last item, saying how many there are. */
export function requireItem(index: number, count: number): void {
  if (index <= count) return;
  const items = count === 1 ? "1 item" : `${count} items`;
  throw new ApiError(
    "invalid_parameter",
    `\`index=${index}\` is past the last item: this post has ${items}; \`index\` counts from 1.`,
  );
}

/** 400 for what an item that does not move (a photo) cannot give: sound (`audio`, `mute`), or a part of it (`start`, `end`). */
export function requireMotion(type: string, wanted: Wanted): void {
  if (wanted.output !== "mp4") {
    throw new ApiError("invalid_parameter", `This item is a ${type}; \`audio=${wanted.output}\` needs a video.`);
  }
  if (wanted.mute) throw new ApiError("invalid_parameter", `This item is a ${type}; \`mute\` needs a video.`);
  if (wanted.clip !== null) {
    throw new ApiError(
      "invalid_parameter",
      `This item is a ${type}; \`start\` and \`end\` cut a part of a video or of sound. Leave them out to download the ${type}.`,
    );
  }
}

/** 400 for `subtitles` of a file that holds none (X lists none, a media link is a bare file, a photo post's files are as served). */
export function requireNoSubtitles(wanted: Wanted): void {
  if (wanted.subtitles !== null) throw missingSubtitles(wanted.subtitles, []);
}

/** A URL from the platform's answer; one that does not parse is the platform's fault, not the caller's. */
export function upstreamUrl(text: string): URL {
  const url = URL.parse(text);
  if (url === null) throw upstreamFailed("The platform named a media link that is not a valid URL; try again later.");
  return url;
}

/** The file's name: the caller's `filename`, else `<platform>_<id>`, with `_<index>` when an item was asked for. */
export function itemName(platform: string, id: string, wanted: Pick<Wanted, "filename" | "index">): string {
  return wanted.filename ?? `${platform.toLowerCase()}_${id}${wanted.index === null ? "" : `_${wanted.index}`}`;
}

/** A photo of a platform the service reads itself, relayed as `host` (its name) serves it: it has no sound and no variants. */
export function photoPlan(
  url: string,
  wanted: Wanted,
  name: string,
  allowed: RelayPlan["allowed"],
  host: string,
): RelayPlan {
  requireMotion("photo", wanted);
  if (wanted.format !== null) {
    throw new ApiError(
      "format_not_available",
      `This photo is one file as ${host} serves it; it has no variants to choose from. Leave \`format\` out.`,
    );
  }
  return { kind: "relay", url: new URL(url), allowed, name };
}

/** A media link (a file on X's CDN, no page): one item, relayed as its host serves it, named after its URL by default. */
export function mediaLinkPlan(url: URL, wanted: Wanted): RelayPlan {
  requireNoSubtitles(wanted);
  if (wanted.index !== null) requireItem(wanted.index, 1);
  return { kind: "relay", url, allowed: assertDirectUrl, name: wanted.filename ?? nameFromMediaUrl(url).stem };
}
