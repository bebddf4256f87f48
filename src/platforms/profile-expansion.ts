// What a profile link stands for in a job (platforms/source.ts, Expansion), the same for every reader that lists a
// profile's posts (the AppView's author feed, X's UserTweets, gallery-dl's listings): its posts in the order read,
// cut at what the job may still hold.
import type { Expansion } from "./source.ts";

/** The first `limit` of `posts`; `more` when the profile has posts past those read, which then make it incomplete. */
export function profileExpansion(posts: readonly URL[], limit: number, more: boolean): Expansion {
  const cut = posts.length > limit || (posts.length === limit && more);
  return {
    posts: posts.slice(0, limit),
    complete: !cut,
    incomplete: cut ? `The profile has more posts than the ${limit} a job may hold.` : null,
  };
}
