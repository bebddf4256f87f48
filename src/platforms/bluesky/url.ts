// Bluesky post links as people paste them: bsky.app/profile/<handle or DID>/post/<record key>.
// The author and the record key are all that matter upstream (they name the post's at:// URI).

export interface BlueskyPostRef {
  /** A handle (`alice.bsky.social`, lower case) or a DID (`did:plc:...`, `did:web:...`). */
  actor: string;
  /** The post's record key (a TID: 13 base32 characters). */
  rkey: string;
}

// Handles are domain names; DIDs are did:<method>:<id>; record keys are 1-512 of [A-Za-z0-9._:~-]
// (atproto's syntax rules). Both reach upstream URLs, so nothing else gets that far.
const handle = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const did = /^did:[a-z]+:[a-zA-Z0-9._:%-]{1,2000}$/;
const rkeyShape = /^[a-zA-Z0-9._:~-]{1,512}$/;
const postPath = /^\/profile\/([^/]+)\/post\/([^/]+)\/?$/;

/** The author and record key of a Bluesky post link; null for any other link. */
export function postRefOf(url: URL): BlueskyPostRef | null {
  const match = postPath.exec(url.pathname);
  const actor = match ? decodeURIComponent(match[1]!) : "";
  const rkey = match?.[2] ?? "";
  const actorOk = did.test(actor) || handle.test(actor.toLowerCase());
  if (!actorOk || !rkeyShape.test(rkey) || rkey === "." || rkey === "..") return null;
  return { actor: actor.startsWith("did:") ? actor : actor.toLowerCase(), rkey };
}

/** The link people open a post by, from its at:// URI and its author's handle. */
export function postLinkOf(post: { uri: string; author: { handle: string } }): URL {
  return new URL(`https://bsky.app/profile/${post.author.handle}/post/${post.uri.split("/").pop()}`);
}

const profilePath = /^\/profile\/([^/]+)\/?$/;

/** The handle or DID of a profile link (bsky.app/profile/<handle or DID>); null for any other link. */
export function profileActorOf(url: URL): string | null {
  const actor = decodeURIComponent(profilePath.exec(url.pathname)?.[1] ?? "");
  if (did.test(actor)) return actor;
  return handle.test(actor.toLowerCase()) ? actor.toLowerCase() : null;
}
