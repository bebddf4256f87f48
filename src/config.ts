// All configuration comes from environment variables, parsed once by one schema. A bad value
// stops start-up with a message that names the variable and what it accepts.
import { availableParallelism, totalmem } from "node:os";
import process from "node:process";
import { z } from "zod";
import { LONGEST_LINK_TTL_S } from "./auth/signed-link.ts";
import { parseTrustedProxies } from "./http/client-address.ts";
import { type SlotCaps, slotCaps } from "./limits/slot-caps.ts";
import { type OutboundProxy, parseOutboundProxy } from "./net/outbound-proxy.ts";
import { platformList } from "./platforms/list.ts";
import { ownReaderSettings } from "./platforms/own-reader.ts";
import { xSettings } from "./platforms/x/settings.ts";
import { tiers } from "./store/api-keys.ts";
import { httpUrl, positiveInt } from "./util/settings.ts";

const port = z.coerce.number().int().min(0).max(65535);
/** A host name, IPv4 address or bracketed IPv6 address, with an optional port. */
const HOST_ENTRY = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
/** A comma list of hosts; an entry that is no host (a URL, a path, a space) is refused, not ignored. */
const hostList = z.string().transform((text, ctx) => {
  const hosts = text.split(",").map((host) => host.trim().toLowerCase()).filter(Boolean);
  const bad = hosts.find((host) => !HOST_ENTRY.test(host) || URL.parse(`http://${host}/`) === null);
  if (bad === undefined) return hosts;
  ctx.addIssue({ code: "custom", message: `"${bad}" is not a host name or address (optionally with :port)` });
  return z.NEVER;
});

/** A comma list of whole seconds, at least one: the waits before each attempt of a delivery. */
const retrySchedule = z.string().transform((text, ctx) => {
  const waits = text.split(",").map((item) => item.trim());
  if (waits.length > 0 && waits.every((wait) => /^\d{1,7}$/.test(wait))) return waits.map(Number);
  ctx.addIssue({ code: "custom", message: "is not a comma list of whole seconds, such as 0,5,300" });
  return z.NEVER;
});

/** An http://, https:// or socks5:// proxy URL, credentials allowed. */
const outboundProxy = z.string().transform((text, ctx) => {
  const proxy = parseOutboundProxy(text);
  if (proxy === null) {
    ctx.addIssue({
      code: "custom",
      message: "is not an http://, https:// or socks5:// URL of a proxy (host and optional port, no path)",
    });
    return z.NEVER;
  }
  return proxy;
});

/** Addresses and CIDR blocks of reverse proxies. */
const trustedProxies = z.string().transform((text, ctx) => {
  const parsed = parseTrustedProxies(text);
  if ("proxies" in parsed) return parsed.proxies;
  ctx.addIssue({
    code: "custom",
    message: `"${parsed.bad}" is not an IP address, a CIDR block (10.0.0.0/8, fd00::/8)`,
  });
  return z.NEVER;
});

/** `host=origin,host=origin` as a map from host name to origin. */
const originOverrides = z.string().transform((text, ctx) => {
  const map = new Map<string, string>();
  for (const pair of text.split(",").map((item) => item.trim()).filter(Boolean)) {
    const [host, origin] = pair.split("=", 2).map((part) => part.trim());
    const parsed = host && origin ? URL.parse(origin) : null;
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.pathname !== "/") {
      ctx.addIssue({ code: "custom", message: `"${pair}" is not host=http(s)://origin` });
      return z.NEVER;
    }
    map.set(host!.toLowerCase(), parsed.origin);
  }
  return map;
});

/** `PLATFORM=url`, `PLATFORM=off` or a bare URL, comma-separated (src/doctor/reference-posts.ts). */
const referenceEntries = z.string().transform((text, ctx) => {
  const entries: ({ platform: string; url: URL | null } | { url: URL })[] = [];
  for (const item of text.split(",").map((part) => part.trim()).filter(Boolean)) {
    const named = /^([A-Z]+)=(.*)$/.exec(item);
    const url = URL.parse(named ? named[2]!.trim() : item);
    const platformKnown = named === null || platformList.some(({ id }) => id === named[1]);
    const urlOk = (named !== null && named[2]!.trim() === "off") || (url !== null && /^https?:$/.test(url.protocol));
    if (!platformKnown || !urlOk) {
      ctx.addIssue({
        code: "custom",
        message: `"${item}" is not PLATFORM=url, PLATFORM=off or an http(s) URL (platforms: ${
          platformList.map(({ id }) => id).join(", ")
        })`,
      });
      return z.NEVER;
    }
    entries.push(named ? { platform: named[1]!, url: named[2]!.trim() === "off" ? null : url } : { url: url! });
  }
  return entries;
});

/**
 * One extraction's memory ceiling: a sixteenth of the machine's memory, at least 640 MB (Deno,
 * which yt-dlp runs for YouTube's challenges under the same ceiling, cannot start with 512) and at
 * most 768 MB (a description is a few MB; more is a page that never ends).
 */
function defaultExtractMemoryMb(): number {
  return Math.min(768, Math.max(640, Math.round(totalmem() / 2 ** 20 / 16)));
}

export const ConfigSchema = z.object({
  PORT: port.default(8080).describe("TCP port to listen on (0 picks a free one)"),
  HOST: z.string().min(1).default("0.0.0.0").describe("Address to listen on"),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/ })
    .optional()
    .describe("postgres://user@host:port/db of a PostgreSQL server; unset uses the embedded PGlite store"),
  DATA_DIR: z.string().min(1).default("./data").describe("Folder of the embedded store and the admin socket"),
  CORS_ORIGIN: z.string().min(1).default("*").describe("Value of Access-Control-Allow-Origin"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info").describe(
    "Lowest level that is logged",
  ),
  SIGNUP: z.enum(["open", "closed"]).default("open").describe(
    "Whether anyone may create an account on the owner's page (open or closed)",
  ),
  SIGNUPS_PER_CLIENT: positiveInt
    .default(5)
    .describe(
      "Accounts one client (an IPv4 address or an IPv6 /64) may create on the owner's page in 24 hours; more are 429 with Retry-After",
    ),
  TRUST_PROXY: trustedProxies
    .default([])
    .describe(
      "Comma list of the reverse proxies (addresses or CIDR blocks) whose X-Forwarded-For names the client; unset believes no such header",
    ),
  PUBLIC_URL: httpUrl
    .optional()
    .describe(
      "The address callers reach the service at (https://media.example.com), which signed links start with; unset: each request's own",
    ),
  COBALT_PORT: port
    .optional()
    .describe(
      "TCP port of the cobalt door, cobalt's API on an origin of its own for cobalt's web app and clients (docs/api.md, cobalt's clients); unset: no door",
    ),
  COBALT_PUBLIC_URL: httpUrl
    .optional()
    .describe(
      "The address cobalt's clients reach the door at (https://cobalt.example.com), which its tunnels start with; unset: each request's own",
    ),
  COBALT_KEYLESS_TIER: z
    .enum(tiers)
    .optional()
    .describe(
      "The tier a request to the cobalt door without a key is made under, counted and limited per client address (an IPv4 address or an IPv6 /64) as a key of that tier; unset: a key is always asked (error.api.auth.key.missing)",
    ),
  LINK_TTL_S: positiveInt.max(LONGEST_LINK_TTL_S).default(3600).describe(
    "How long a signed link (downloadUrl) works, in seconds",
  ),
  REQUEST_HEAD_TIMEOUT_S: positiveInt
    .max(300)
    .default(15)
    .describe(
      "How long a connection may take to send a complete request head, from its first byte or from being opened; then it gets 408 and is closed (Node and Bun)",
    ),
  REQUEST_BODY_GRACE_S: positiveInt
    .max(300)
    .default(20)
    .describe(
      "How long a request body may take to arrive before REQUEST_BODY_MIN_RATE applies to it, in seconds; then a body slower than that is cut and its connection closed (Node and Bun)",
    ),
  REQUEST_BODY_MIN_RATE: positiveInt
    .default(500)
    .describe("Bytes a second a request body must average over the time past REQUEST_BODY_GRACE_S (Node and Bun)"),
  MAX_CONNECTIONS: positiveInt
    .optional()
    .describe(
      "Client connections this instance holds open at once; at the cap a new one takes the place of one still sending its request from the client holding the most, or is closed at once (Node and Bun); unset: half the process's open-file limit, at most 4096",
    ),
  MAX_CONNECTIONS_PER_CLIENT: positiveInt
    .default(64)
    .describe(
      "Client connections one client (an IPv4 address or an IPv6 /64 of the socket's peer; the proxies TRUST_PROXY names are exempt) holds open at once (Node and Bun)",
    ),
  CLIENT_STALL_TIMEOUT_S: z.coerce
    .number()
    .int()
    .min(0)
    .default(60)
    .describe(
      "How long a download's client may take none of the bytes waiting for it before the download is cut, in seconds; 0 never cuts",
    ),
  HEALTH_TIMEOUT_MS: positiveInt.default(2000).describe("How long /healthz and each /readyz check wait"),
  METRICS_TOKEN: z
    .string()
    .min(16)
    .optional()
    .describe(
      "Bearer token that GET /metrics and /platformz require (at least 16 characters); unset, they answer only requests from this machine",
    ),
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe("On SIGTERM or SIGINT, how long downloads in flight may go on before they are cut"),

  // X's client's settings, declared in its folder.
  ...xSettings,

  ORIGIN_OVERRIDES: originOverrides
    .default(new Map())
    .describe(
      "Comma list of host=origin, e.g. `video.twimg.com=http://127.0.0.1:9000`: fetch that host's media from another origin; the media tools' connections to that host go there too",
    ),
  MAX_DOWNLOAD_BYTES: positiveInt.default(2 * 1024 ** 3).describe("Largest file a download may send, in bytes"),
  DOWNLOAD_IDLE_TIMEOUT_S: z.coerce
    .number()
    .int()
    .min(0)
    .default(30)
    .describe(
      "How long a download's source may send nothing before the download is cut, in seconds; 0 never cuts (docs/runtimes.md: Deno's relay at full speed)",
    ),
  MAX_DIRECT_DOWNLOADS: positiveInt.default(256).describe("Direct-mode relays this instance runs at once"),
  OUTBOUND_PROXY: outboundProxy
    .optional()
    .describe(
      "http://, https:// or socks5:// URL of a proxy every outbound connection goes through (credentials allowed); OUTBOUND_PROXY_<PLATFORM> (such as OUTBOUND_PROXY_YOUTUBE, a comma list taken in turn) carries that platform's hosts instead",
    ),
  DIRECT_TIMEOUT_MS: positiveInt.default(15_000).describe(
    "How long direct mode waits for the media host's response head",
  ),

  YTDLP_PATH: z.string().min(1).default("yt-dlp").describe("The yt-dlp program (a name on PATH or a path)"),
  GALLERY_DL_PATH: z.string().min(1).default("gallery-dl").describe(
    "The gallery-dl program (a name on PATH or a path), which reads photo posts",
  ),
  GALLERY_DL_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      "PEM file of the certificate authorities gallery-dl trusts instead of its own, for an OUTBOUND_PROXY that intercepts TLS or a local mirror of a platform (yt-dlp has no such option)",
    ),
  FFMPEG_PATH: z.string().min(1).default("ffmpeg").describe("The ffmpeg program (a name on PATH or a path)"),
  YTDLP_JS_RUNTIME: z
    .string()
    .regex(
      /^(auto|off|(deno|node|bun|quickjs)(:.+)?)$/,
      "auto, off, or a runtime yt-dlp knows with an optional path (deno:/usr/bin/deno)",
    )
    .default("auto")
    .describe(
      "JavaScript runtime yt-dlp solves YouTube's challenges with: auto (the deno package, else the runtime the service runs on), off, or deno|node|bun|quickjs[:path]",
    ),
  COOKIES_FILE: z.string().min(1).optional().describe(
    "Netscape-format cookie file (as browser export extensions write it) for yt-dlp, gallery-dl, ffmpeg, the media relay and X; read anew for every use, never modified; the default jar of every platform without one of its own (COOKIES_DIR, or COOKIES_FILE_<PLATFORM> such as COOKIES_FILE_YOUTUBE)",
  ),
  COOKIES_DIR: z.string().min(1).optional().describe(
    "Folder of cookie jars by platform: <dir>/<platform>/*.txt (youtube/alice.txt, youtube/bob.txt), each file one account's Netscape cookies, used only for its platform's hosts and taken in turn; read anew for every use, never modified",
  ),
  ACCOUNT_COOKIES: z
    .enum(["on", "off"])
    .default("off")
    .describe(
      "on: an owner may upload a platform's Netscape cookie file on the site (/profile/cookies), kept sealed in the store, used only for the calls of that account's keys in place of the operator's jar for that platform; off: no such page",
    ),
  COOKIES_SET_ASIDE_S: positiveInt.default(1800).describe(
    "How long an account of a jar that its platform refused (a sign-in or bot wall, its rate limit) is set aside, in seconds; a proxy of OUTBOUND_PROXY_<PLATFORM> that failed is set aside as long",
  ),
  PO_TOKEN_URL: httpUrl.optional().describe(
    "Base URL of a YouTube proof-of-origin token server the operator runs (bgutil's protocol: POST <url>/get_pot); yt-dlp asks it for a token per video through the extraction host; unset: no tokens, as before",
  ),
  PO_TOKEN_TIMEOUT_MS: positiveInt.default(6000).describe(
    "Bound on each ask of the token server (PO_TOKEN_URL); past it the extraction fails with 502 upstream_failed naming the token server",
  ),
  SUPPORTED_SITES: z
    .enum(["listed", "all"])
    .default("listed")
    .describe(
      "listed: the platforms of the table and EXTRA_PAGE_HOSTS; all: also any link an extractor of the installed yt-dlp or gallery-dl claims (never their generic ones), as the platform named after that extractor",
    ),
  EXTRA_PAGE_HOSTS: hostList.default([]).describe(
    "Comma list of further hosts (host:port for that port only; a bare host means ports 80 and 443) whose pages yt-dlp may fetch, as platform OTHER",
  ),
  WEBHOOK_EXTRA_HOSTS: hostList.default([]).describe(
    "Comma list of receivers webhooks may be delivered to although they are not on a public address (host:port for that port only; a bare host means ports 80 and 443), such as one on this machine",
  ),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule
    .default([0, 5, 300, 1800, 7200, 18000, 36000, 36000])
    .describe(
      "Comma list of seconds to wait before each attempt to deliver a webhook event, the first included (Standard Webhooks' schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); after the last the event is given up",
    ),
  WATCH_MIN_EVERY_S: positiveInt.max(7 * 24 * 3600).default(900).describe(
    "The shortest period a watch may run on, in seconds (every at least this; no two runs of a cron line closer); each run expands its link on this server's extractions",
  ),
  EXTRACTION_HOST: z
    .enum(["on", "off"])
    .default("on")
    .describe(
      "on: one resident Python process keeps yt-dlp and gallery-dl loaded and runs each extraction in a warm worker or child of its own (tens of ms instead of about a second) and reads a page's HTML5 media only up to PLAYLIST_MAX_ITEMS; off: each extraction starts the tool's program, which reads them all",
    ),
  EXTRACT_MEMORY_MB: positiveInt
    .min(256)
    .default(defaultExtractMemoryMb())
    .describe(
      "Heap (RLIMIT_DATA) the kernel lets one yt-dlp or gallery-dl extraction hold, in MB; past it the request fails with 502 memory_exceeded (default a sixteenth of the machine's memory, 640 to 768)",
    ),
  EXTRACT_TIMEOUT_S: positiveInt.default(60).describe("Time cap of one yt-dlp or gallery-dl extraction, in seconds"),
  EXTRACT_MAX_BYTES: positiveInt.default(16 * 1024 ** 2).describe(
    "Most bytes the sources of one extraction may send it, pages and API answers together (media excluded), in bytes",
  ),
  EXTRACT_BODY_TIMEOUT_S: positiveInt.default(20).describe(
    "Longest one page or API answer of an extraction may keep arriving, in seconds",
  ),
  PAGE_TIMEOUT_S: positiveInt.default(900).describe("Time cap of one page-mode download, in seconds"),
  PAGE_CACHE_TTL_S: z.coerce.number().int().min(0).default(300).describe(
    "How long post descriptions from yt-dlp, gallery-dl and the service's own readers are kept, in seconds",
  ),
  PLAYLIST_MAX_ITEMS: positiveInt.max(100).default(20).describe(
    "Most items yt-dlp and gallery-dl describe of a page with several media (a carousel, a playlist link, a gallery), 1 to 100",
  ),
  JOB_CONCURRENCY: positiveInt.max(1000).default(32).describe(
    "Items of jobs this instance runs at once, of each tier's keys together (each key's share by tier: docs/api.md, Jobs)",
  ),
  PLATFORM_CHECK_POSTS: referenceEntries
    .default([])
    .describe(
      "Comma list changing the platform check's reference posts: PLATFORM=url replaces a platform's default post, PLATFORM=off drops its check, a bare URL on one of the EXTRA_PAGE_HOSTS adds a check of that host",
    ),
  PLATFORM_CHECK_INTERVAL_S: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "Run the platform check in the background about this often (each wait drawn within ±25%, the first within 30 s of start), in seconds; 0 runs it only on demand (`admin doctor`)",
    ),
  MEMORY_BUDGET_MB: positiveInt
    .default(defaultMemoryBudgetMb())
    .describe(
      "Memory this instance's processes may use together, in MiB, which sizes the caps on concurrent work; default half the machine's memory (or of the container's limit)",
    ),
  MAX_EXTRACTIONS: positiveInt
    .optional()
    .describe(
      "Extractions (post look-ups, yt-dlp and gallery-dl) this instance runs at once; unset: half of MEMORY_BUDGET_MB over 20 MiB, what one costs",
    ),
  MAX_REMUXES: positiveInt
    .optional()
    .describe(
      "Page-mode downloads that copy streams (ffmpeg -c copy) this instance runs at once; unset: MAX_PAGE_DOWNLOADS if set, else 16 per CPU, at most a quarter of MEMORY_BUDGET_MB over 16 MiB",
    ),
  MAX_ENCODES: positiveInt
    .optional()
    .describe(
      "Page-mode downloads that encode (audio=mp3) this instance runs at once; unset: MAX_PAGE_DOWNLOADS if set, else the CPU count",
    ),
  JOB_NICENESS: z.coerce.number().int().min(0).max(19).default(10).describe(
    "How much lower than the service's the OS priority (nice) of the media tools of jobs is, so that interactive calls' tools get the CPU first; 0 runs them as the service",
  ),
  JOB_EXTRACTIONS: positiveInt
    .optional()
    .describe(
      "Extractions of jobs (their links' reads and their items) this instance runs at once, of every key together; unset: 4 per CPU, at most half of MAX_EXTRACTIONS",
    ),
  CLIP_EXACT_CUTS: z
    .enum(["on", "off"])
    .default("off")
    .describe(
      "on: a download's clip may ask for an exact cut (`cut=exact`), which re-encodes the video and holds an encode slot (MAX_ENCODES) for its whole length; off: clips are cut at key frames (stream copy) and `cut=exact` is 400",
    ),
  MAX_PAGE_DOWNLOADS: positiveInt
    .optional()
    .describe(
      "Earlier versions' single cap on page-mode downloads; when set, the default of MAX_REMUXES and MAX_ENCODES",
    ),
  // The settings of the service's own readers, each declared in its platform's folder (its own-reader.ts).
  ...(ownReaderSettings(platformList) as {}),
});

type Settings = z.infer<typeof ConfigSchema>;
/** The settings, with the caps on concurrent work filled in from the machine where unset (limits/slot-caps.ts). */
export type Config = Omit<Settings, keyof SlotCaps> & SlotCaps & PlatformSettings;

/** What the settings named after a platform say (COOKIES_FILE_<PLATFORM>, OUTBOUND_PROXY_<PLATFORM>), by platform id. */
export interface PlatformSettings {
  platformCookieFiles: ReadonlyMap<string, string>;
  platformProxies: ReadonlyMap<string, readonly OutboundProxy[]>;
}

/** Half the machine's memory, or of the container's limit when one is set, in MiB. */
function defaultMemoryBudgetMb(): number {
  // constrainedMemory() is the cgroup's limit (0 or a huge number when there is none); Deno lacks it.
  const limit = typeof process.constrainedMemory === "function" ? process.constrainedMemory() : 0;
  const bytes = limit > 0 ? Math.min(limit, totalmem()) : totalmem();
  return Math.max(64, Math.floor(bytes / 2 / 2 ** 20));
}

/** Variables whose values never appear in a message: a database or proxy URL carries its password. */
const secretVariables = new Set(["DATABASE_URL", "METRICS_TOKEN", "OUTBOUND_PROXY"]);

const platformSettingPattern = /^(COOKIES_FILE|OUTBOUND_PROXY)_([A-Z0-9_]+)$/;

/**
 * The settings named after a platform of the table; a name of no platform, or a proxy list with an entry that is
 * no proxy URL, is a line of the configuration's error (a typo would otherwise leave a platform on the default).
 */
function platformSettings(env: Record<string, string>): PlatformSettings | { problems: string[] } {
  const ids = new Set(platformList.map((row) => row.id));
  const cookieFiles = new Map<string, string>();
  const proxies = new Map<string, OutboundProxy[]>();
  const problems: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const match = platformSettingPattern.exec(name);
    if (match === null) continue;
    const [, kind, platform] = match as unknown as [string, string, string];
    if (!ids.has(platform as never)) {
      problems.push(`${name}: ${platform} is no platform of the table (${[...ids].join(", ")})`);
    } else if (kind === "COOKIES_FILE") cookieFiles.set(platform, value);
    else {
      const list = value.split(",").filter((entry) => entry.trim() !== "").map(parseOutboundProxy);
      if (list.length > 0 && list.every((proxy) => proxy !== null)) proxies.set(platform, list as OutboundProxy[]);
      else problems.push(`${name}: is not a comma list of http://, https:// or socks5:// proxy URLs (value not shown)`);
    }
  }
  return problems.length > 0 ? { problems } : { platformCookieFiles: cookieFiles, platformProxies: proxies };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // Empty strings are treated as unset, so `PORT=` in an env file means "the default".
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const result = ConfigSchema.safeParse(present);
  const perPlatform = platformSettings(present as Record<string, string>);
  if (result.success && !("problems" in perPlatform)) {
    return { ...result.data, ...slotCaps(result.data, availableParallelism()), ...perPlatform };
  }
  const lines = (result.success ? [] : result.error.issues).map((issue) => {
    const name = String(issue.path[0] ?? "config");
    const given = present[name];
    const shown = given === undefined
      ? ""
      : secretVariables.has(name)
      ? " (value not shown: it may hold a secret)"
      : ` (got ${JSON.stringify(given)})`;
    return `${name}: ${issue.message}${shown}. ${describeVariable(name)}`;
  });
  if ("problems" in perPlatform) lines.push(...perPlatform.problems);
  throw new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
}

function describeVariable(name: string): string {
  const shape = ConfigSchema.shape as Record<string, z.ZodType>;
  const description = shape[name]?.description;
  return description ? `${name} is: ${description}.` : "";
}
