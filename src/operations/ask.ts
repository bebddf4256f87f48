// How an operation asks a source (platforms/source.ts), the same for `post` and `download`: the
// source's tools checked first (503 tool_missing), and the caller's extraction slot held while a
// source that extracts works (429 too_many_extractions). The platform check holds no key's slot.
import { ApiError } from "../http/problem.ts";
import type { SlotHolder, Slots } from "../limits/slots.ts";
import type { ExtractorClaims } from "../platforms/claims.ts";
import type { PlatformId } from "../platforms/records.ts";
import type { Ask, Link, Source } from "../platforms/source.ts";
import { claimedRow, detectPlatform, supportedPlatformsText } from "../platforms/table.ts";
import { requireTools, type ToolProbe } from "../processes/tools.ts";

export interface AskDeps {
  tools: ToolProbe;
  /** Concurrent extractions (yt-dlp, gallery-dl): each is a Python process for up to a minute. */
  extractions: Slots;
}

/** `work` of `source` for `link`, its tools there and, when it extracts, `holder`'s extraction slot held (none for null). */
export async function asking<T>(
  deps: AskDeps,
  source: Source,
  link: Link,
  holder: SlotHolder | null,
  work: () => Promise<T>,
): Promise<T> {
  await requireTools(deps.tools, source.tools(link));
  const release = source.extracts && holder !== null ? deps.extractions.acquire(holder) : () => {};
  try {
    return await work();
  } finally {
    release();
  }
}

/** The service's one Ask (platforms/source.ts), built at start: the download handler's, and the sources' that hand a link on. */
export function createAsk(deps: AskDeps): Ask {
  return (source, link, wanted, asker) =>
    asking(deps, source, link, asker.holder, () => source.plan(link, wanted, asker));
}

/** Which links are supported: the table's, the operator's extra hosts, and with SUPPORTED_SITES=all what an extractor claims. */
export interface SupportedSites {
  extraPageHosts: readonly string[];
  /** The installed tools' extractors (SUPPORTED_SITES=all); null for the table alone. */
  claims: ExtractorClaims | null;
}

/** The platform of a page link: its row's, OTHER on an extra host, else (SUPPORTED_SITES=all) its extractor's; null for none. */
export async function platformOf(url: URL, sites: SupportedSites): Promise<PlatformId | null> {
  const listed = detectPlatform(url, sites.extraPageHosts);
  if (listed !== null || sites.claims === null) return listed;
  return claimedRow(url, await sites.claims.claimOf(url))?.id ?? null;
}

/** The platform of a page link, or 400 unsupported_platform naming the ones there are. */
export async function requirePlatform(url: URL, sites: SupportedSites): Promise<PlatformId> {
  const platform = await platformOf(url, sites);
  if (platform === null) throw unsupportedPlatform(url, sites);
  return platform;
}

/** 400 for a link of no supported platform. */
export function unsupportedPlatform(url: URL, sites: SupportedSites): ApiError {
  return new ApiError("unsupported_platform", `${url.hostname} is not a supported platform. ${supportedText(sites)}`);
}

/** The platforms a link may be of, for the detail of a refused link: `post` and `download` name the same. */
export function supportedText(sites: SupportedSites): string {
  const more = sites.claims === null
    ? ""
    : ", and the sites an extractor of yt-dlp or gallery-dl reads (not a plain web page)";
  return `Supported: ${supportedPlatformsText}${more}.`;
}
