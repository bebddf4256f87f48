// The app's parts that reach outside the process (X, media hosts, yt-dlp, ffmpeg) and the caps
// on them, built from the configuration and the runtime's upstream client.
import type { Config } from "./config.ts";
import { createSlots, slotsPerTier } from "./limits/slots.ts";
import { defaultFfmpegLimits } from "./media/ffmpeg.ts";
import { probeTools, type ToolName } from "./media/tools.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import { countedFetch, countedUpstream } from "./metrics/upstream.ts";
import { createTweetSource, xWebClientBearerToken } from "./platforms/x/source.ts";
import { createPageSource } from "./platforms/ytdlp/source.ts";
import type { Runtime } from "./runtime/runtime.ts";

/** The app's parts that talk to the outside, built from the configuration, counting their calls. */
export function createUpstreams(config: Config, runtime: Runtime, metrics: ServiceMetrics = createServiceMetrics()) {
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
  const tweets = createTweetSource({
    fetch: countedFetch(fetch, xUpstreamOf, metrics),
    syndicationUrl: config.X_SYNDICATION_URL,
    graphql,
    timeoutMs: config.X_TIMEOUT_MS,
    cacheTtlMs: config.X_CACHE_TTL_S * 1000,
    cacheMaxEntries: config.X_CACHE_MAX_ENTRIES,
  });
  const relay = {
    upstream: countedUpstream(runtime.upstream, metrics),
    onUndeclaredBytes: (count: number) => metrics.relayedBytes("direct", count),
    originOverrides: config.ORIGIN_OVERRIDES,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    firstByteTimeoutMs: config.DIRECT_TIMEOUT_MS,
  };
  const tools = probeTools({ "yt-dlp": config.YTDLP_PATH, ffmpeg: config.FFMPEG_PATH });
  const pages = createPageSource({
    ytdlpPath: config.YTDLP_PATH,
    timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
    socketTimeoutSec: Math.min(20, config.EXTRACT_TIMEOUT_S),
    cacheTtlMs: config.PAGE_CACHE_TTL_S * 1000,
    cacheMaxEntries: 500,
    maxItems: config.PLAYLIST_MAX_ITEMS,
    onChild: () => metrics.childStarted("yt-dlp"),
  });
  const remux = {
    ffmpegPath: config.FFMPEG_PATH,
    limits: defaultFfmpegLimits,
    timeoutMs: config.PAGE_TIMEOUT_S * 1000,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    onChild: () => metrics.childStarted("ffmpeg"),
    onBytes: (count: number) => metrics.relayedBytes("page", count),
  };
  const downloads = createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_downloads", what: "page-mode downloads" });
  const extractions = createSlots({ perTier: slotsPerTier, server: config.MAX_PAGE_DOWNLOADS, code: "too_many_extractions", what: "page look-ups" });
  const readinessChecks = (Object.keys(tools) as ToolName[]).map((name) => ({
    name,
    check: async () => {
      if (tools[name].version === null) throw new Error(`${tools[name].path} could not be run`);
    },
  }));
  // The operator's own hosts: the extra page hosts and the origins media is fetched from instead.
  const trustedHosts = new Set(
    [...config.EXTRA_PAGE_HOSTS.map((host) => `http://${host}`), ...config.ORIGIN_OVERRIDES.values()].map((origin) => new URL(origin).hostname),
  );
  const egress = { trustedHosts };
  return { tweets, relay, remux, pages, tools, downloads, extractions, egress, extraPageHosts: config.EXTRA_PAGE_HOSTS, metrics, readinessChecks };
}
