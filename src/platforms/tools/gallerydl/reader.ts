// gallery-dl as a source (platforms/source.ts): a photo post's record, and a download as a relay
// of the file of the item `index` names (by default the first), as the platform's CDN serves it,
// from the platform's media hosts only.
import { ApiError, upstreamFailed } from "../../../http/problem.ts";
import type { RelayPlan } from "../../../media/plan.ts";
import { itemName, requireItem, requireMotion, requireNoSubtitles, upstreamUrl } from "../../items.ts";
import type { PostRecord } from "../../records.ts";
import type { Link, Source, Wanted } from "../../source.ts";
import { platformMediaCheck } from "../../table.ts";
import type { GalleryClient } from "./client.ts";

/** A source whose plans are read off its record: each item is a file as the platform serves it. */
export interface RecordSource extends Source {
  planFromRecord(record: PostRecord, link: Link, wanted: Wanted): RelayPlan;
}

export function galleryReader(galleries: GalleryClient): RecordSource {
  return {
    tools: () => ["gallery-dl"],
    extracts: true,
    describe: (link, options) => galleries.post(link.url, link.platform, options),
    async plan(link, wanted) {
      return itemFile(await galleries.post(link.url, link.platform), link, wanted);
    },
    planFromRecord: itemFile,
  };
}

function itemFile(record: PostRecord, link: Link, wanted: Wanted): RelayPlan {
  requireNoSubtitles(wanted);
  if (wanted.index !== null) requireItem(wanted.index, record.media.length);
  const item = record.media[(wanted.index ?? 1) - 1];
  if (item === undefined) throw new ApiError("no_media", "This post has no video or image to download.");
  // A sound item's one variant names its own file (the record's signed link of the variant asks for it so).
  if (wanted.format !== null && !item.videoVariants.some((variant) => variant.formatId === wanted.format)) {
    throw new ApiError(
      "format_not_available",
      `This ${item.type} is one file as the platform serves it; it has no variants to choose from. Leave \`format\` out.`,
    );
  }
  if (item.type !== "video") requireMotion(item.type, wanted);
  // A sound item relayed with `mute` would be ffmpeg's copy of that same sound, not a silent video.
  if (wanted.mute && item.videoVariants.some((variant) => variant.qualityLabel === "audio")) {
    throw new ApiError("invalid_parameter", "This item is sound alone; `mute` needs a video. Leave `mute` out.");
  }
  if (item.url === null) throw upstreamFailed("gallery-dl named no file for this item; try again later.");
  return {
    kind: "relay",
    url: upstreamUrl(item.url),
    allowed: platformMediaCheck(link.platform),
    name: itemName(link.platform, record.id, wanted),
  };
}
