// Bluesky's expansion for jobs (platforms/source.ts, Expands): a post link stands for the author's
// own chain of replies from that post down, read from the public AppView as the posts are; a post
// its author did not reply to is one post (null). A profile link stands for its posts (profile.ts).
import type { Expands, Expansion } from "../source.ts";
import { unknownShapeOf } from "../known-shapes.ts";
import type { Platform } from "../platform.ts";
import { type AppViewOptions, createAppView } from "./appview.ts";
import { authorChain, type ChainPost } from "./thread.ts";
import { profilePosts } from "./profile.ts";
import { postRefOf, profileActorOf } from "./url.ts";

export interface BlueskyThreadsOptions extends AppViewOptions {
  /** Levels of replies asked for in one answer (100 when not given); a deeper chain is read in further answers. */
  depthPerAnswer?: number;
  /** The platform module it reads: the shapes a link of no known shape is told. */
  platform: Platform;
}

export function createBlueskyThreads(options: BlueskyThreadsOptions): Expands<Expansion> {
  const appView = createAppView(options);
  const depthPerAnswer = options.depthPerAnswer ?? 100;
  return {
    async expand(link, limit, signal, threads = true) {
      const actor = profileActorOf(link.url);
      if (actor !== null) return profilePosts(appView, actor, limit, signal);
      if (!threads) return null;
      const posts: ChainPost[] = [];
      let from = link.url;
      for (;;) {
        signal.throwIfAborted();
        const ref = postRefOf(from);
        if (ref === null) throw unknownShapeOf(options.platform, from);
        const answer = await appView.thread(ref, Math.min(depthPerAnswer, limit));
        const page = authorChain(answer);
        // A further answer starts with the post the one before ended on.
        posts.push(...(posts.length === 0 ? page.posts : page.posts.slice(1)));
        if (page.continuesBelow === null && posts.length === 1) return null;
        if (page.continuesBelow === null || posts.length >= limit) {
          const cut = posts.length > limit || (posts.length === limit && page.continuesBelow !== null);
          return {
            posts: posts.slice(0, limit).map((post) => post.link),
            complete: !cut,
            incomplete: cut ? `The thread goes on past the ${limit} posts a job may hold.` : null,
          };
        }
        from = page.continuesBelow.link;
      }
    },
  };
}
