// What the app is built from besides its configuration, store and log: the parts that reach
// outside the process (X, media hosts, yt-dlp, ffmpeg), the caps on concurrent work, and the
// readiness checks of the tools. The runtime's capabilities are wired in here and nowhere else.
import type { Config } from "./config.ts";
import type { ApiError } from "./http/problem.ts";
import { createLogger, type Logger } from "./log.ts";
import { operationSlots } from "./limits/slots.ts";
import { trustedEndpoints, type ResolveHost } from "./media/egress.ts";
import { cookieHeaderFor } from "./media/cookie-header.ts";
import { createEgressGate, type ListenLoopback } from "./media/egress-gate.ts";
import { defaultFfmpegLimits } from "./media/ffmpeg.ts";
import { parseOutboundProxy, type OutboundProxy } from "./media/outbound-proxy.ts";
import { fetchOver, type UpstreamClient } from "./media/relay-upstream.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import { countedFetch, countedUpstream } from "./metrics/upstream.ts";
import { xSessionFromCookieFile } from "./platforms/x/session-cookies.ts";
import { createTweetSource, xWebClientBearerToken } from "./platforms/x/source.ts";
import { cookieFile, type Files } from "./platforms/ytdlp/cookie-file.ts";
import { resolveJsRuntime } from "./platforms/ytdlp/js-runtime.ts";
import { createPageSource } from "./platforms/ytdlp/source.ts";
import { createGallerySource } from "./platforms/gallerydl/source.ts";
import { detectPlatform, siteOf } from "./platforms/table.ts";
import { postRecord } from "./handlers/post.ts";
import { createPlatformChecks } from "./doctor/checker.ts";
import { failureContext } from "./doctor/context.ts";
import { referencePosts } from "./doctor/reference-posts.ts";
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
export function createAppDeps(
  config: Config,
  runtime: Capabilities,
  metrics: ServiceMetrics = createServiceMetrics(),
  now: () => Date = () => new Date(),
  log: Logger = createLogger("warn"),
) {
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
  const cookies =
    config.COOKIES_FILE === undefined ? undefined : cookieFile(runtime.files, config.COOKIES_FILE, (fault) => log.warn(fault, { setting: "COOKIES_FILE" }));
  const upstream = outbound === null ? runtime.upstream : runtime.proxiedUpstream(outbound);
  const tweets = createTweetSource({
    fetch: countedFetch(outbound === null ? fetch : fetchOver(upstream), xUpstreamOf, metrics),
    syndicationUrl: config.X_SYNDICATION_URL,
    graphql,
    timeoutMs: config.X_TIMEOUT_MS,
    cacheTtlMs: config.X_CACHE_TTL_S * 1000,
    cacheMaxEntries: config.X_CACHE_MAX_ENTRIES,
    session: async () => {
      const content = (await cookies?.read()) ?? null;
      return content === null ? null : xSessionFromCookieFile(new TextDecoder().decode(content), now());
    },
    onAnswer: (path) => metrics.xSource(path),
  });
  // 0 turns the cut off, for direct and page mode alike.
  const idleTimeoutMs = config.DOWNLOAD_IDLE_TIMEOUT_S === 0 ? undefined : config.DOWNLOAD_IDLE_TIMEOUT_S * 1000;
  const relay = {
    upstream: countedUpstream(upstream, metrics),
    onUndeclaredBytes: (count: number) => metrics.relayedBytes("direct", count),
    originOverrides: config.ORIGIN_OVERRIDES,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    firstByteTimeoutMs: config.DIRECT_TIMEOUT_MS,
    idleTimeoutMs,
    resolveHost: runtime.resolveHost,
    cookies: cookies === undefined ? undefined : async (url: URL) => {
      // Read for every use, like the tools' copies; a file that cannot be used sends none.
      const content = await cookies.read();
      return content === null ? null : cookieHeaderFor(new TextDecoder().decode(content), url, now());
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
  const onBlocked = (page: URL, error: ApiError) => {
    metrics.upstreamBlocked(detectPlatform(page, config.EXTRA_PAGE_HOSTS) ?? "OTHER");
    void platformChecks.noteFailure(page, error);
  };
  const extractor = createExtractionHost({
    processes: runtime.processes,
    toolRuns: runtime.toolRuns,
    ytdlpPath: config.YTDLP_PATH,
    galleryDlPath: config.GALLERY_DL_PATH,
    cli: createCliExtractor(runtime.processes, { "yt-dlp": config.YTDLP_PATH, "gallery-dl": config.GALLERY_DL_PATH }),
    enabled: config.EXTRACTION_HOST === "on",
    onStatus: metrics.extractionHost,
  });
  // What both tools' descriptions are read with: the same caps, cache, gate, cookies and metrics.
  const extraction = {
    extractor,
    files: runtime.files,
    timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
    socketTimeoutSec: Math.min(20, config.EXTRACT_TIMEOUT_S),
    cacheTtlMs: config.PAGE_CACHE_TTL_S * 1000,
    cacheMaxEntries: 500,
    gate,
    cookies,
    onBlocked,
  };
  const pages = createPageSource({
    ...extraction,
    maxItems: config.PLAYLIST_MAX_ITEMS,
    onChild: () => metrics.childStarted("yt-dlp"),
    jsRuntime: resolveJsRuntime(config.YTDLP_JS_RUNTIME, runtime.automaticJsRuntime),
  });
  const galleries = createGallerySource({
    ...extraction,
    onChild: () => metrics.childStarted("gallery-dl"),
    caFile: config.GALLERY_DL_CA_FILE,
  });
  const slots = operationSlots(config, metrics.slotsHeld);
  const postDeps = { tweets, pages, galleries, tools, extractions: slots.extractions, extraPageHosts: config.EXTRA_PAGE_HOSTS };
  const platformChecks = createPlatformChecks({
    posts: referencePosts(config.PLATFORM_CHECK_POSTS, config.EXTRA_PAGE_HOSTS),
    fetchPost: (url) => postRecord(postDeps, url, { check: true }),
    siteOf: (page) => siteOf(page, config.EXTRA_PAGE_HOSTS),
    context: failureContext({ tools, cookies, now }),
    onResult: (result) => metrics.platformChecked(result.site, result.status === "ok", result.from === "check" && result.at !== null ? new Date(result.at) : null),
    now,
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
    // HLS playlists are fetched by the service through the gate session, as ffmpeg's fetches go.
    playlistClient: (proxyUrl: string) => runtime.proxiedUpstream(parseOutboundProxy(proxyUrl)!),
  };
  return {
    extractor,
    tweets,
    relay,
    remux,
    pages,
    galleries,
    tools,
    ...slots,
    platformChecks,
    egress,
    gate,
    extraPageHosts: config.EXTRA_PAGE_HOSTS,
    clientStallTimeoutMs: config.CLIENT_STALL_TIMEOUT_S * 1000,
    metrics,
    cookies,
    readinessChecks: [
      ...toolReadinessChecks(tools, now),
      hostReadiness(extractor),
      // A cookie file that cannot be used is a warning: the service works without it.
      ...(cookies === undefined ? [] : [{ name: "cookies", check: () => cookies.fault() }]),
    ],
  };
}
