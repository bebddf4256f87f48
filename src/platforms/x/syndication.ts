// Answers of cdn.syndication.twimg.com/tweet-result, validated and mapped to a TweetRecord.
import { z } from "zod";
import { notFound, unavailable, unknownAnswerShape } from "./errors.ts";
import { Entities, Media, partsToXTweet, TextRange, type XTweet } from "./tweet-parts.ts";

const SyndicationTweet = z.object({
  __typename: z.literal("Tweet"),
  id_str: z.string(),
  text: z.string(),
  created_at: z.string().optional(),
  display_text_range: TextRange.optional(),
  entities: Entities.optional(),
  user: z.object({
    name: z.string().optional(),
    screen_name: z.string().optional(),
    profile_image_url_https: z.string().optional(),
  }),
  mediaDetails: z.array(Media).optional(),
  article: z.object({ title: z.string() }).optional(),
});

const SyndicationTombstone = z.object({
  __typename: z.literal("TweetTombstone"),
  tombstone: z.object({ text: z.object({ text: z.string() }) }).optional(),
});

// `{}` is how the API says "no such post" with status 200.
const SyndicationEmpty = z.strictObject({});

const SyndicationAnswer = z.union([SyndicationTweet, SyndicationTombstone, SyndicationEmpty]);

/** A 200 answer of the syndication API as a tweet (its record and playlists); throws 404 for missing or hidden posts, 502 for a shape we do not know. */
export function syndicationAnswerToTweet(answer: unknown, id: string): XTweet {
  const parsed = SyndicationAnswer.safeParse(answer);
  if (!parsed.success) {
    throw unknownAnswerShape(parsed.error);
  }
  const data = parsed.data;
  if (!("__typename" in data)) throw notFound(id);
  if (data.__typename === "TweetTombstone") throw unavailable(id, data.tombstone?.text.text ?? null);
  return partsToXTweet({
    id: data.id_str,
    rawText: data.text,
    displayTextRange: data.display_text_range ?? null,
    urls: data.entities?.urls ?? [],
    mediaLinks: (data.entities?.media ?? []).map((m) => m.url),
    createdAt: data.created_at ? new Date(data.created_at) : null,
    authorName: data.user.name ?? null,
    authorScreenName: data.user.screen_name ?? null,
    authorAvatarUrl: data.user.profile_image_url_https ?? null,
    media: data.mediaDetails ?? [],
    articleTitle: data.article?.title ?? null,
  });
}
