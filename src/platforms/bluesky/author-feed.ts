// A Bluesky profile's posts as a job reads them, from the AppView's getAuthorFeed answers. Pure.
// The service asks for the profile's Posts tab (`posts_and_author_threads`: the author's posts and
// their replies within their own threads, newest first); the feed also holds what the author
// reposted, an item with a `reason`, which is someone else's post and no post of the profile.
import { z } from "zod";
import { upstreamFailed } from "../../http/problem.ts";
import { postLinkOf } from "./url.ts";

const FeedItem = z.object({
  post: z.object({ uri: z.string(), author: z.object({ handle: z.string() }) }),
  reason: z.unknown().optional(),
});
const FeedAnswer = z.object({ feed: z.array(FeedItem), cursor: z.string().optional() });

/** One answer's posts of the profile, in the feed's order, and the cursor of the next answer (null at the end). */
export interface FeedPage {
  posts: URL[];
  cursor: string | null;
}

/** The profile's own posts of a getAuthorFeed answer; 502 for a shape this does not read. */
export function authorFeedPage(answer: unknown): FeedPage {
  const parsed = FeedAnswer.safeParse(answer);
  if (!parsed.success) {
    throw upstreamFailed("Bluesky answered with a feed this service cannot read; try again later.", {
      cause: parsed.error,
    });
  }
  const { feed, cursor } = parsed.data;
  // An answer of no items ends the feed, whatever cursor it names.
  return {
    posts: feed.filter((item) => item.reason === undefined).map((item) => postLinkOf(item.post)),
    cursor: feed.length > 0 ? cursor ?? null : null,
  };
}
