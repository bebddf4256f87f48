// The `post` verb: the platform-independent record of docs/api.md, from the source the link's
// platform row names (platforms/sources.ts). The `post` operation, a job's items and the platform
// check all read a post through it.
import type { SlotHolder } from "../limits/slots.ts";
import type { PostRecord } from "../platforms/records.ts";
import type { SourceOf } from "../platforms/sources.ts";
import type { LinkResolver } from "../platforms/short-links.ts";
import { requireOnePost } from "../platforms/table.ts";
import { type AskDeps, asking, requirePlatform, type SupportedSites } from "./ask.ts";

export interface PostDeps extends AskDeps, SupportedSites {
  sources: SourceOf;
  /** The link a reader reads for a pasted one: a mirror's on its platform's host, a short link followed. */
  resolveLink: LinkResolver;
}

/** Who asks for a post: a key (its and its account's extraction slots), or the platform check (no key, nothing counted, never cached). */
export type PostAsker = { key: SlotHolder } | { check: true };

/**
 * The record of a post, the way every `post` request gets it; the platform check (src/doctor/)
 * runs its reference posts through this same function.
 */
export async function postRecord(deps: PostDeps, pasted: URL, asker: PostAsker): Promise<PostRecord> {
  const page = await deps.resolveLink(pasted);
  const link = { url: page, platform: await requirePlatform(page, deps) };
  requireOnePost(link.url, link.platform);
  const source = deps.sources(link);
  const holder = "key" in asker ? asker.key : null;
  return asking(deps, source, link, holder, () => source.describe(link, { uncached: "check" in asker }));
}
