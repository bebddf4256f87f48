// The app's parts that reach outside the process (X, media hosts, yt-dlp, ffmpeg) and the caps
// on them, built from the configuration and the runtime's upstream client.
import { readFile } from "node:fs/promises";
import type { Config } from "./config.ts";
import { createSlots, directSlotsPerTier, slotsPerTier } from "./limits/slots.ts";
import { trustedEndpoints } from "./media/egress.ts";
import { createEgressGate } from "./media/egress-gate.ts";
import { createNodeUpstream } from "./media/relay-node-upstream.ts";
import { fetchOver } from "./media/relay-upstream.ts";
import { defaultFfmpegLimits } from "./media/ffmpeg.ts";
import { probeTools, toolVersion, ytdlpAgeWarning, type ToolName } from "./processes/tools.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import { countedFetch, countedUpstream } from "./metrics/upstream.ts";
import { xSessionFromCookieFile } from "./platforms/x/session-cookies.ts";
import { createTweetSource, xWebClientBearerToken } from "./platforms/x/source.ts";
import { resolveJsRuntime } from "./platforms/ytdlp/js-runtime.ts";
import { createPageSource } from "./platforms/ytdlp/source.ts";
import { detectPlatform } from "./platforms/table.ts";
import type { Runtime } from "./runtime/runtime.ts";

/** The app's parts that talk to the outside, built from the configuration, counting their calls. */
export function createUpstreams(config: Config, runtime: Runtime, metrics: ServiceMetrics = createServiceMetrics(), now: () => Date = () => new Date()) {
  const graphqlBase = config.X_GRAPHQL_URL === "off" ? null : config.X_GRAPHQL_URL.replace(/\/+$/, "");
  const graphql = graphqlBase === null ? null : {
    guestActivateUrl: `${graphqlBase}/1.1/guest/activate.json`,
    tweetResultUrl: `${graphqlBase}/graphql/${config.X_GRAPHQL_QUERY_ID}/TweetResultByRestId`,
    bearerToken: xWebClientBearerToken,
  };
  const xUpstreamOf = (url: string) =>
    graphql === null ? "x_syndication"
    : url.startsWith(graphql.guestActivateUrl) ? "x_guest_token"
    : url.startsWith(graphql.tweetResultUrl) ? "x_graphql"
    : "x_syndication";
  // With OUTBOUND_PROXY every connection leaves through it: the media relay and X's APIs over the
  // node:http client (fetch cannot be pointed at a proxy on every runtime), yt-dlp and ffmpeg
  // through the egress gate, which chains to it.
  const outbound = config.OUTBOUND_PROXY ?? null;
  const upstream = outbound === null ? runtime.upstream : createNodeUpstream(outbound);
  const tweets = createTweetSource({
    fetch: countedFetch(outbound === null ? fetch : fetchOver(upstream), xUpstreamOf, metrics),
    syndicationUrl: config.X_SYNDICATION_URL,
    graphql,
    timeoutMs: config.X_TIMEOUT_MS,
    cacheTtlMs: config.X_CACHE_TTL_S * 1000,
    cacheMaxEntries: config.X_CACHE_MAX_ENTRIES,
    session: async () => {
      if (config.COOKIES_FILE === undefined) return null;
      // Read for every use, so a changed file counts without a restart; unreadable means no session.
      const text = await readFile(config.COOKIES_FILE, "utf8").catch(() => null);
      return text === null ? null : xSessionFromCookieFile(text, now());
    },
    onAnswer: (path) => metrics.xSource(path),
  });
  const relay = {
    upstream: countedUpstream(upstream, metrics),
    onUndeclaredBytes: (count: number) => metrics.relayedBytes("direct", count),
    originOverrides: config.ORIGIN_OVERRIDES,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    firstByteTimeoutMs: config.DIRECT_TIMEOUT_MS,
    idleTimeoutMs: config.DOWNLOAD_IDLE_TIMEOUT_S * 1000,
  };
  const egress = { trusted: trustedEndpoints(config.EXTRA_PAGE_HOSTS, config.ORIGIN_OVERRIDES) };
  const gate = createEgressGate({ policy: egress, outbound });
  const tools = probeTools({ "yt-dlp": config.YTDLP_PATH, ffmpeg: config.FFMPEG_PATH });
  for (const name of Object.keys(tools) as ToolName[]) {
    const version = toolVersion(tools[name]);
    if (version !== null) metrics.toolInfo(name, version);
  }
  const pages = createPageSource({
    ytdlpPath: config.YTDLP_PATH,
    timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
    socketTimeoutSec: Math.min(20, config.EXTRACT_TIMEOUT_S),
    cacheTtlMs: config.PAGE_CACHE_TTL_S * 1000,
    cacheMaxEntries: 500,
    maxItems: config.PLAYLIST_MAX_ITEMS,
    onChild: () => metrics.childStarted("yt-dlp"),
    gate,
    jsRuntime: resolveJsRuntime(config.YTDLP_JS_RUNTIME),
    cookiesFile: config.COOKIES_FILE,
    onBlocked: (page) => metrics.upstreamBlocked(detectPlatform(page, config.EXTRA_PAGE_HOSTS) ?? "OTHER"),
  });
  const remux = {
    ffmpegPath: config.FFMPEG_PATH,
    limits: defaultFfmpegLimits,
    timeoutMs: config.PAGE_TIMEOUT_S * 1000,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    onChild: () => metrics.childStarted("ffmpeg"),
    onBytes: (count: number) => metrics.relayedBytes("page", count),
    gate,
    idleTimeoutMs: config.DOWNLOAD_IDLE_TIMEOUT_S * 1000,
  };
  const downloads = createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_downloads", what: "page-mode downloads" });
  const directDownloads = createSlots({ perTier: directSlotsPerTier, server: config.MAX_DIRECT_DOWNLOADS, code: "too_many_downloads", what: "direct downloads" });
  const extractions = createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_extractions", what: "page look-ups" });
  const readinessChecks = (Object.keys(tools) as ToolName[]).map((name) => ({
    name,
    check: async () => {
      if (tools[name].version === null) throw new Error(`${tools[name].path} could not be run`);
      return name === "yt-dlp" ? ytdlpAgeWarning(tools, now()) : null;
    },
  }));
  return { tweets, relay, remux, pages, tools, downloads, directDownloads, extractions, egress, gate, extraPageHosts: config.EXTRA_PAGE_HOSTS, metrics, readinessChecks };
}
