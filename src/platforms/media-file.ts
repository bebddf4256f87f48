// A link straight to one of a platform's photo files (a module's `mediaFiles`, such as an X photo on pbs.twimg.com),
// read as that file whatever the platform's reader: the link names no post, so there is nothing to ask the platform;
// the record is the one photo, and a download relays it from the platform's media hosts. One source for every
// platform; the hosts and path shapes are the modules' data.
import { nameFromMediaUrl } from "../media/filename.ts";
import { photoPlan, requireItem, requireNoSubtitles } from "./items.ts";
import type { PostRecord } from "./records.ts";
import type { Link, Source } from "./source.ts";
import { platformMediaCheck } from "./table.ts";

/** The record of a media file's link: one photo, the file itself, named after its path as its host names it. */
export function mediaFileRecord(link: Link): PostRecord {
  const file = link.url.href;
  return {
    platform: link.platform,
    id: nameFromMediaUrl(link.url).stem,
    url: file,
    text: null,
    authorName: null,
    durationSec: null,
    posterUrl: null,
    needsServerProcessing: false,
    videoVariants: [],
    imageUrls: [file],
    media: [{
      type: "photo",
      url: file,
      posterUrl: null,
      width: null,
      height: null,
      durationSec: null,
      videoVariants: [],
      altText: null,
    }],
    subtitles: [],
    card: null,
  };
}

/**
 * The source of media files' links (platforms/sources.ts, reader `file`): no tool, no extraction, no request. A link
 * its download would refuse (http, a user, a password or a port: the platform's media check) is refused by `post` too,
 * 403 as the download's, rather than told as a record whose file cannot be had.
 */
export const mediaFileSource: Source = {
  tools: () => [],
  extracts: false,
  describe: async (link) => {
    platformMediaCheck(link.platform)(link.url, "A media file's link");
    return mediaFileRecord(link);
  },
  async plan(link, wanted) {
    requireNoSubtitles(wanted);
    if (wanted.index !== null) requireItem(wanted.index, 1);
    // Named as its host names it, as a media link of X's always was (items.ts `mediaLinkPlan`).
    const name = wanted.filename ?? mediaFileRecord(link).id;
    return photoPlan(link.url.href, wanted, name, platformMediaCheck(link.platform), link.url.host);
  },
};
