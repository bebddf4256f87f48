// The `download` verb's plan: the source the link's platform row names (platforms/sources.ts)
// plans the download, a relay of one file or ffmpeg's remux of inputs; a link of no platform is a
// media link of X's CDN, relayed as it is. The `download` operation and a job's archive plan their
// files through it; the runner (media/run-plan.ts) carries the plan out.
import { ApiError } from "../http/problem.ts";
import type { RunDeps } from "../media/run-plan.ts";
import { mediaLinkPlan } from "../platforms/items.ts";
import type { SourceOf } from "../platforms/sources.ts";
import type { LinkResolver } from "../platforms/short-links.ts";
import { requireOnePost } from "../platforms/table.ts";
import type { Ask, Asker, Plan, Wanted } from "../platforms/source.ts";
import { DIRECT_HOSTS } from "../http/direct-hosts.ts";
import { type AskDeps, platformOf, type SupportedSites, supportedText } from "./ask.ts";

export interface DownloadDeps extends AskDeps, SupportedSites {
  sources: SourceOf;
  /** How the handler asks the link's source for its plan (ask.ts `createAsk`). */
  ask: Ask;
  /** The link a reader reads for a pasted one: a mirror's on its platform's host, a short link followed. */
  resolveLink: LinkResolver;
  /** What carrying out a plan needs: the relay's and ffmpeg's options, the slots by kind of work. */
  runner: RunDeps;
}

/**
 * 403 for a link that is neither a platform's page nor on X's media hosts: the specification's
 * "host not allowed" (download, rule 3), where `post` says 400 `unsupported_platform` of the same link.
 */
function hostNotAllowed(url: URL, sites: SupportedSites): ApiError {
  return new ApiError(
    "host_not_allowed",
    `${url.hostname} is neither a supported platform nor one of X's media hosts (${[...DIRECT_HOSTS].join(", ")}). ${
      supportedText(sites)
    }`,
  );
}

/**
 * The plan of the link's source, asked as every source is (ask.ts); a link of X's media hosts is
 * relayed as it is, and any other link is refused (403 `host_not_allowed`). A job's archive plans
 * each file of its items the same way, and so does an item with files, to check its file answers.
 */
export async function planOf(pasted: URL, wanted: Wanted, asker: Asker, deps: DownloadDeps): Promise<Plan> {
  const url = await deps.resolveLink(pasted, asker.signal);
  const platform = await platformOf(url, deps);
  if (platform === null && !DIRECT_HOSTS.has(url.hostname)) throw hostNotAllowed(url, deps);
  if (platform === null) return mediaLinkPlan(url, wanted);
  requireOnePost(url, platform);
  const link = { url, platform };
  return deps.ask(deps.sources(link), link, wanted, asker);
}
