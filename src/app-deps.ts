// What the app is built from besides its configuration, store and log: the parts that reach
// outside the process (X, media hosts, yt-dlp, ffmpeg), the caps on concurrent work, and the
// readiness checks of the tools. The runtime's capabilities are wired in here and nowhere else.
import type { Config } from "./config.ts";
import { operationSlots } from "./limits/slots.ts";
import { trustedEndpoints, type ResolveHost } from "./media/egress.ts";
import { cookieHeaderFor } from "./media/cookie-header.ts";
import { createEgressGate, type ListenLoopback } from "./media/egress-gate.ts";
import { defaultFfmpegLimits } from "./media/ffmpeg.ts";
import type { OutboundProxy } from "./media/outbound-proxy.ts";
import { fetchOver, type UpstreamClient } from "./media/relay-upstream.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import { countedFetch, countedUpstream } from "./metrics/upstream.ts";
import { xSessionFromCookieFile } from "./platforms/x/session-cookies.ts";
import { createTweetSource, xWebClientBearerToken } from "./platforms/x/source.ts";
import type { Files } from "./platforms/ytdlp/cookie-file.ts";
import { resolveJsRuntime } from "./platforms/ytdlp/js-runtime.ts";
import { createPageSource } from "./platforms/ytdlp/source.ts";
import { createGallerySource } from "./platforms/gallerydl/source.ts";
import { detectPlatform } from "./platforms/table.ts";
import { createExtractionHost, hostReadiness } from "./processes/extraction-host.ts";
import { createCliExtractor } from "./processes/extractor.ts";
import type { ProcessHost } from "./processes/process-host.ts";
import { probeTools, toolReadinessChecks, toolVersion, type ToolName, type ToolRuns } from "./processes/tools.ts";

/** What the app needs from the runtime it runs on; each entry file (src/runtime/) hands it in. */
export interface Capabilities {
  /** The upstream HTTP client that relays media fastest on this runtime. */
  upstream: UpstreamClient;
  /** An upstream client that connects through the operator's proxy. */
  proxiedUpstream(proxy: OutboundProxy): UpstreamClient;
  processes: ProcessHost;
  toolRuns: ToolRuns;
  resolveHost: ResolveHost;
  /** The egress gate's listener. */
  listenLoopback: ListenLoopback;
  files: Files;
  /** yt-dlp's JavaScript runtime when YTDLP_JS_RUNTIME is `auto`. */
  automaticJsRuntime(): string;
}

/** The app's parts that talk to the outside, built from the configuration, counting their calls. */
export function createAppDeps(config: Config, runtime: Capabilities, metrics: ServiceMetrics = createServiceMetrics(), now: () => Date = () => new Date()) {
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
  // runtime's proxied client (fetch cannot be pointed at a proxy on every runtime), yt-dlp and ffmpeg
  // through the egress gate, which chains to it.
  const outbound = config.OUTBOUND_PROXY ?? null;
  const upstream = outbound === null ? runtime.upstream : runtime.proxiedUpstream(outbound);
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
      const bytes = await runtime.files.read(config.COOKIES_FILE).catch(() => null);
      return bytes === null ? null : xSessionFromCookieFile(new TextDecoder().decode(bytes), now());
    },
    onAnswer: (path) => metrics.xSource(path),
  });
  // 0 turns the cut off, for direct and page mode alike.
  const cookiesFile = config.COOKIES_FILE;
  const idleTimeoutMs = config.DOWNLOAD_IDLE_TIMEOUT_S === 0 ? undefined : config.DOWNLOAD_IDLE_TIMEOUT_S * 1000;
  const relay = {
    upstream: countedUpstream(upstream, metrics),
    onUndeclaredBytes: (count: number) => metrics.relayedBytes("direct", count),
    originOverrides: config.ORIGIN_OVERRIDES,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    firstByteTimeoutMs: config.DIRECT_TIMEOUT_MS,
    idleTimeoutMs,
    resolveHost: runtime.resolveHost,
    cookies: cookiesFile === undefined ? undefined : async (url: URL) => {
      // Read for every use, like the tools' copies; an unreadable file sends none.
      const bytes = await runtime.files.read(cookiesFile).catch(() => null);
      return bytes === null ? null : cookieHeaderFor(new TextDecoder().decode(bytes), url, now());
    },
  };
  const egress = { trusted: trustedEndpoints(config.EXTRA_PAGE_HOSTS, config.ORIGIN_OVERRIDES), resolveHost: runtime.resolveHost };
  const gate = createEgressGate({ policy: egress, outbound, listen: runtime.listenLoopback, originOverrides: config.ORIGIN_OVERRIDES });
  const tools = probeTools(runtime.toolRuns, { "yt-dlp": config.YTDLP_PATH, "gallery-dl": config.GALLERY_DL_PATH, ffmpeg: config.FFMPEG_PATH });
  void tools.then((known) => {
    for (const name of Object.keys(known) as ToolName[]) {
      const version = toolVersion(known[name]);
      if (version !== null) metrics.toolInfo(name, version);
    }
  });
  const onBlocked = (page: URL) => metrics.upstreamBlocked(detectPlatform(page, config.EXTRA_PAGE_HOSTS) ?? "OTHER");
  const extractor = createExtractionHost({
    processes: runtime.processes,
    toolRuns: runtime.toolRuns,
    ytdlpPath: config.YTDLP_PATH,
    galleryDlPath: config.GALLERY_DL_PATH,
    cli: createCliExtractor(runtime.processes, { "yt-dlp": config.YTDLP_PATH, "gallery-dl": config.GALLERY_DL_PATH }),
    enabled: config.EXTRACTION_HOST === "on",
    onStatus: metrics.extractionHost,
  });
  const pages = createPageSource({
    extractor,
    files: runtime.files,
    timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
    socketTimeoutSec: Math.min(20, config.EXTRACT_TIMEOUT_S),
    cacheTtlMs: config.PAGE_CACHE_TTL_S * 1000,
    cacheMaxEntries: 500,
    maxItems: config.PLAYLIST_MAX_ITEMS,
    onChild: () => metrics.childStarted("yt-dlp"),
    gate,
    jsRuntime: resolveJsRuntime(config.YTDLP_JS_RUNTIME, runtime.automaticJsRuntime),
    cookiesFile: config.COOKIES_FILE,
    onBlocked,
  });
  const galleries = createGallerySource({
    extractor,
    files: runtime.files,
    timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
    socketTimeoutSec: Math.min(20, config.EXTRACT_TIMEOUT_S),
    cacheTtlMs: config.PAGE_CACHE_TTL_S * 1000,
    cacheMaxEntries: 500,
    onChild: () => metrics.childStarted("gallery-dl"),
    gate,
    cookiesFile: config.COOKIES_FILE,
    caFile: config.GALLERY_DL_CA_FILE,
    onBlocked,
  });
  const remux = {
    processes: runtime.processes,
    ffmpegPath: config.FFMPEG_PATH,
    limits: defaultFfmpegLimits,
    timeoutMs: config.PAGE_TIMEOUT_S * 1000,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    onChild: () => metrics.childStarted("ffmpeg"),
    onBytes: (count: number) => metrics.relayedBytes("page", count),
    gate,
    idleTimeoutMs,
  };
  return {
    extractor,
    tweets,
    relay,
    remux,
    pages,
    galleries,
    tools,
    ...operationSlots(config),
    egress,
    gate,
    extraPageHosts: config.EXTRA_PAGE_HOSTS,
    clientStallTimeoutMs: config.CLIENT_STALL_TIMEOUT_S * 1000,
    metrics,
    readinessChecks: [...toolReadinessChecks(tools, now), hostReadiness(extractor)],
  };
}
