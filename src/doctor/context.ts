// What the classing of a failed check reads from outside: the extractor's version and age (the
// tools' probe), and the expiry of the operator's sign-in cookies (COOKIES_FILE, read anew).
import type { CookieFile } from "../platforms/tools/ytdlp/cookie-file.ts";
import { galleryReads } from "../platforms/tools/post-source.ts";
import type { PlatformId } from "../platforms/records.ts";
import { readByService } from "../platforms/platform.ts";
import { rowOf } from "../platforms/table.ts";
import { galleryDlAgeDays, type ToolProbe, type Tools, toolVersion, ytdlpAgeDays } from "../processes/tools.ts";
import type { FailureContext, PlatformRemedies } from "./classify.ts";
import { expiredSession } from "./session-cookies.ts";

export interface ContextSources {
  tools: ToolProbe;
  /** The operator's COOKIES_FILE, as every tool reads it; undefined without one. */
  cookies: CookieFile | undefined;
  now: () => Date;
  /** Which remedies for its walls a platform has (its jar, its proxies, a token server); undefined for a site of none. */
  remedies?: (site: string) => Promise<PlatformRemedies | undefined>;
}

const toolsUpdate =
  "update the media tools (bash scripts/setup-debian.sh --update-tools, or point YTDLP_PATH / GALLERY_DL_PATH at current ones)";
const ownUpdate = (name: string) =>
  `${name} posts are read by this service itself, not by the media tools: update the service`;

const ageOf = { "yt-dlp": ytdlpAgeDays, "gallery-dl": galleryDlAgeDays } as const;

/** "yt-dlp 2026.10.26 (30 days old)": the tool's version and how old it is, as far as can be told. */
function named(tools: Tools, name: keyof typeof ageOf, now: Date): string {
  const version = toolVersion(tools[name]);
  if (version === null) return `${name} (which could not be run)`;
  const age = ageOf[name](version, now);
  return age === null
    ? `${name} ${version}`
    : `${name} ${version} (${name === "gallery-dl" ? "at least " : ""}${age} days old)`;
}

export function failureContext(sources: ContextSources): (site: string) => Promise<FailureContext> {
  return async (site) => {
    const now = sources.now();
    const cookies = (await sources.cookies?.read()) ?? null;
    const expired = cookies === null ? null : expiredSession(new TextDecoder().decode(cookies), site, now);
    const row = rowOf(site as PlatformId);
    const remedies = await sources.remedies?.(site);
    return { ...(await toolContext(sources, site, row, now)), expiredSession: expired, remedies };
  };
}

/** Which extractor read the site's posts, and how to get a newer one. */
async function toolContext(
  sources: ContextSources,
  site: string,
  row: ReturnType<typeof rowOf>,
  now: Date,
): Promise<Pick<FailureContext, "extractor" | "update">> {
  // The service's own reader failed: the service is the one to fix it.
  if (row !== undefined && readByService(row)) {
    const { reader, update } = row.checkAdvice ?? { reader: `the ${row.name} reader`, update: ownUpdate(row.name) };
    return { extractor: reader, update };
  }
  const tools = await sources.tools.current();
  // A platform gallery-dl reads may have failed in either tool.
  const extractor = galleryReads(site as PlatformId)
    ? `${named(tools, "yt-dlp", now)} and ${named(tools, "gallery-dl", now)}`
    : named(tools, "yt-dlp", now);
  return { extractor, update: toolsUpdate };
}
