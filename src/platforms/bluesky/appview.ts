// Bluesky's public AppView API (no key): a handle's DID (com.atproto.identity.resolveHandle), a
// post's thread (app.bsky.feed.getPostThread: the post alone, or with its replies some levels deep,
// never its parents) and a profile's feed (app.bsky.feed.getAuthorFeed, a page at a time). The
// AppView answers a missing post or an unknown handle with 400 and an error name in its JSON body.
import { ApiError, upstreamFailed } from "../../http/problem.ts";
import type { JsonAnswer, Outbound } from "../../net/outbound.ts";
import { type BlueskyPost, notFound, threadToPost } from "./post.ts";
import type { BlueskyPostRef } from "./url.ts";

export interface AppViewOptions {
  /** Base URL of the AppView (BLUESKY_APPVIEW_URL). */
  baseUrl: string;
  /** The outbound client to the AppView, whose timeout bounds each exchange. */
  outbound: Outbound;
}

export interface AppView {
  /** The post's view as a record; 404 when it is deleted, blocked or its author's handle names nobody. */
  post(ref: BlueskyPostRef): Promise<BlueskyPost>;
  /** getPostThread's answer with `depth` levels of replies below the post (404 as `post`), unread. */
  thread(ref: BlueskyPostRef, depth: number): Promise<unknown>;
  /** getAuthorFeed's answer: the profile's posts (its Posts tab), `limit` (1 to 100) from `cursor` on; unread. */
  authorFeed(actor: string, cursor: string | null, limit: number): Promise<unknown>;
}

/** The error name of a 400 answer (`NotFound`, `InvalidRequest`), or null. */
const errorName = (answer: JsonAnswer) => (answer.body as { error?: unknown } | undefined)?.error ?? null;

/** A post's view is a few KB (its quote and embeds included); the bound keeps one that never ends from filling memory. */
const maxAnswerBytes = 2 ** 20;

export function createAppView(options: AppViewOptions): AppView {
  const base = options.baseUrl.replace(/\/+$/, "");
  const call = (method: string, params: Record<string, string>) =>
    options.outbound.json({
      url: new URL(`${base}/xrpc/${method}?${new URLSearchParams(params)}`),
      readErrors: [400],
      maxBytes: maxAnswerBytes,
    });
  const failed = (answer: JsonAnswer) =>
    upstreamFailed(`Bluesky answered with status ${answer.status}; try again later.`);

  async function didOf(ref: BlueskyPostRef): Promise<string> {
    if (ref.actor.startsWith("did:")) return ref.actor;
    const answer = await call("com.atproto.identity.resolveHandle", { handle: ref.actor });
    // An unknown handle is 400 InvalidRequest ("Unable to resolve handle").
    if (answer.status === 400) throw notFound(ref);
    const did = (answer.body as { did?: unknown } | undefined)?.did;
    if (answer.status !== 200 || typeof did !== "string" || !did.startsWith("did:")) throw failed(answer);
    return did;
  }

  async function thread(ref: BlueskyPostRef, depth: number): Promise<unknown> {
    const uri = `at://${await didOf(ref)}/app.bsky.feed.post/${ref.rkey}`;
    const answer = await call("app.bsky.feed.getPostThread", { uri, depth: String(depth), parentHeight: "0" });
    if (answer.status === 400 && errorName(answer) === "NotFound") throw notFound(ref);
    if (answer.status !== 200) throw failed(answer);
    return answer.body;
  }

  async function authorFeed(actor: string, cursor: string | null, limit: number): Promise<unknown> {
    const params = { actor, limit: String(limit), filter: "posts_and_author_threads" };
    const answer = await call("app.bsky.feed.getAuthorFeed", cursor === null ? params : { ...params, cursor });
    // An unknown profile is 400 InvalidRequest ("Profile not found").
    if (answer.status === 400) throw new ApiError("not_found", `Bluesky has no profile ${actor}; check the link.`);
    if (answer.status !== 200) throw failed(answer);
    return answer.body;
  }

  return {
    post: async (ref) => threadToPost(await thread(ref, 0), ref),
    thread,
    authorFeed,
  };
}
