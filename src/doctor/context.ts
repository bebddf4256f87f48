// What the classing of a failed check reads from outside: the extractor's version and age (the
// tools' probe), and the expiry of the operator's sign-in cookies (COOKIES_FILE, read anew).
import type { Files } from "../platforms/ytdlp/cookie-file.ts";
import { toolVersion, ytdlpAgeDays, type Tools } from "../processes/tools.ts";
import type { FailureContext } from "./classify.ts";
import { expiredSession } from "./session-cookies.ts";

export interface ContextSources {
  tools: Promise<Tools>;
  files: Files;
  cookiesFile: string | undefined;
  now: () => Date;
}

const ytdlpUpdate = "update yt-dlp (bash scripts/setup-debian.sh --update-yt-dlp, or point YTDLP_PATH at a current one)";
const xUpdate = "X posts are read by this service's own X client: update the service, or set X_GRAPHQL_QUERY_ID to the query id X's web client uses now";

async function ytdlpNamed(tools: Promise<Tools>, now: Date): Promise<string> {
  const version = toolVersion((await tools)["yt-dlp"]);
  if (version === null) return "yt-dlp (which could not be run)";
  const age = ytdlpAgeDays(version, now);
  return age === null ? `yt-dlp ${version}` : `yt-dlp ${version} (${age} days old)`;
}

export function failureContext(sources: ContextSources): (site: string) => Promise<FailureContext> {
  return async (site) => {
    const now = sources.now();
    const cookies = sources.cookiesFile === undefined ? null : await sources.files.read(sources.cookiesFile).catch(() => null);
    const expired = cookies === null ? null : expiredSession(new TextDecoder().decode(cookies), site, now);
    if (site === "X") return { extractor: "the X client", update: xUpdate, expiredSession: expired };
    return { extractor: await ytdlpNamed(sources.tools, now), update: ytdlpUpdate, expiredSession: expired };
  };
}
