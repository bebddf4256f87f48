// yt-dlp as a source (platforms/source.ts): a page's post record from its description, and a
// download as ffmpeg's remux of the formats `format` selects from the item `index` names.
import { requireItem } from "../../items.ts";
import type { Expands, Source } from "../../source.ts";
import { expansionOf, listingRange, mayStandForMany } from "./expansion.ts";
import { mainEntry, postItems } from "./info.ts";
import { infoToPost, postId, requireServable } from "./post.ts";
import { planRemux, selectorFor } from "./selection.ts";
import type { PageClient } from "./client.ts";
import { chooseSubtitle } from "./subtitles.ts";

export function ytdlpReader(pages: PageClient): Source & Expands {
  return {
    tools: () => ["yt-dlp"],
    extracts: true,
    mayExpand: mayStandForMany,
    async expand(link, limit, signal) {
      if (!mayStandForMany(link)) return null;
      const info = await pages.listing(link.url, listingRange(limit), signal);
      // A page that is one post was read whole by its listing: that is its record, not a second read.
      return expansionOf(info, limit) ?? { post: infoToPost(info, link.platform, link.url) };
    },
    async describe(link, options = {}) {
      return infoToPost(await pages.info(link.url, options), link.platform, link.url);
    },
    async plan(link, wanted, { signal }) {
      // The description (kept from /post, or extracted now and kept) says how many items there are.
      if (wanted.index !== null) requireItem(wanted.index, postItems(await pages.info(link.url)).length);
      const { info, formats } = await pages.select(
        link.url,
        selectorFor(wanted.format, wanted.output),
        signal,
        wanted.index ?? 1,
      );
      // A page of no file to serve is no_media here too, not a remux of nothing.
      requireServable(info);
      const entry = mainEntry(info);
      const ffmpeg = planRemux(formats, wanted.output);
      if (wanted.subtitles !== null) ffmpeg.subtitles = chooseSubtitle(entry, wanted.subtitles);
      return {
        kind: "remux",
        ffmpeg,
        name: wanted.filename ?? `${link.platform.toLowerCase()}_${postId(entry, link.platform)}`,
        // The unrounded length: the post record's whole seconds would be off by up to half a second.
        durationSec: entry.duration ?? null,
      };
    },
  };
}
