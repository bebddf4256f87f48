// The signed links of a record (docs/api.md, Signed links): the record's default download, each
// item of `media` and each video variant get a `downloadUrl` to /api/v1/download with the
// parameters that fetch exactly that, signed for the key that asked.
import {
  LinkedPostRecord,
  LinkedTweetRecord,
  type PostRecord,
  type PostVideoVariant,
  type TweetRecord,
  type TweetVideoVariant,
} from "../platforms/records.ts";
import type { LinkMaker } from "../auth/link-caller.ts";
import type { ClipRange } from "../http/clip-range.ts";

interface WithVariants<V> {
  videoVariants: V[];
}

/**
 * `record` with its links. A post's variant is its page with `format`; an X post's variant is its
 * own file on X's CDN (direct mode), so every record's links are plain download calls. The answer
 * is checked against the record's schema on the way out.
 */
export function withDownloadUrls(
  record: PostRecord,
  link: LinkMaker,
  clip?: ClipRange | null,
): Promise<LinkedPostRecord>;
export function withDownloadUrls(
  record: TweetRecord,
  link: LinkMaker,
  clip?: ClipRange | null,
): Promise<LinkedTweetRecord>;
export async function withDownloadUrls(
  record: PostRecord | TweetRecord,
  link: LinkMaker,
  clip: ClipRange | null = null,
): Promise<LinkedPostRecord | LinkedTweetRecord> {
  // A clip's bounds go into the links of what moves; the signature covers them as any parameter.
  const clipped = (params: Record<string, string>) => ({ ...params, ...clipParams(clip) });
  if ("platform" in record) {
    const page = record.url;
    return LinkedPostRecord.parse(
      await linkRecord(
        record,
        page,
        link,
        (variant: PostVideoVariant, index) => clipped({ url: page, ...index, format: variant.formatId }),
        clipped,
      ),
    );
  }
  // The tweet record has no link of its own; this one reads the same post.
  return LinkedTweetRecord.parse(
    await linkRecord(
      record,
      `https://x.com/i/status/${record.id}`,
      link,
      (variant: TweetVideoVariant) => clipped({ url: variant.url }),
      clipped,
    ),
  );
}

/** `download`'s `start` and `end` of a clip, in seconds. */
function clipParams(clip: ClipRange | null): Record<string, string> {
  if (clip === null) return {};
  return { start: String(clip.startSec), ...(clip.endSec === null ? {} : { end: String(clip.endSec) }) };
}

async function linkRecord<V>(
  record: WithVariants<V> & { media: (WithVariants<V> & { type: string })[] },
  page: string,
  link: LinkMaker,
  variantParams: (variant: V, index: { index?: string }) => Record<string, string>,
  clipped: (params: Record<string, string>) => Record<string, string>,
) {
  // A photo has no part to cut; the record's own link sends its first video where it has one.
  const moving = (item: { type: string }, params: Record<string, string>) =>
    item.type === "photo" ? params : clipped(params);
  const variants = (list: V[], index: { index?: string }) =>
    Promise.all(list.map(async (variant) => ({ ...variant, downloadUrl: await link(variantParams(variant, index)) })));
  const media = await Promise.all(
    record.media.map(async (item, at) => {
      const index = { index: String(at + 1) };
      return {
        ...item,
        downloadUrl: await link(moving(item, { url: page, ...index })),
        videoVariants: await variants(item.videoVariants, index),
      };
    }),
  );
  return {
    ...record,
    downloadUrl: await link(
      record.media.some((item) => item.type !== "photo") ? clipped({ url: page }) : { url: page },
    ),
    videoVariants: await variants(record.videoVariants, {}),
    media,
  };
}
