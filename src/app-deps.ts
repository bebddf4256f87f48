// What the app is built from besides its configuration, store and log: the parts that reach
// outside the process (X, media hosts, yt-dlp, ffmpeg), the caps on concurrent work, and the
// readiness checks of the tools. The runtime's capabilities are wired in here and nowhere else.
// One builder per part; they share what every part reads (`Wiring`).
import type { Config } from "./config.ts";
import type { ApiError } from "./http/problem.ts";
import type { ReadinessCheck } from "./http/readiness.ts";
import { createLogger, type Logger } from "./log.ts";
import { operationSlots } from "./limits/slots.ts";
import { type EgressPolicy, endpointKey, portOf, type ResolveHost, trustedEndpoints } from "./net/egress.ts";
import { cookieHeaderFor } from "./media/cookie-header.ts";
import { createEgressGate, type EgressGate, type ListenLoopback } from "./net/egress-gate.ts";
import { defaultFfmpegLimits } from "./media/ffmpeg.ts";
import { type OutboundProxy, parseOutboundProxy } from "./net/outbound-proxy.ts";
import { createOutboundRoutes, type OutboundRoutes, type ProxyState, routedUpstream } from "./net/outbound-routes.ts";
import { connectFailureOf } from "./util/connect-failure.ts";
import type { RelayOptions } from "./media/relay.ts";
import type { UpstreamClient } from "./net/relay-upstream.ts";
import type { RemuxOptions } from "./media/remux.ts";
import { createServiceMetrics, type ServiceMetrics, type Upstream } from "./metrics/service-metrics.ts";
import { countedUpstream, isHealthyStatus } from "./metrics/upstream.ts";
import { createExtractorClaims, type ExtractorClaims } from "./platforms/claims.ts";
import { createOutbound, type Outbound } from "./net/outbound.ts";
import { createLinkResolver, SHORT_LINK_TIMEOUT_MS } from "./platforms/short-links.ts";
import { SUBTITLE_TIMEOUT_MS, type TranscriptDeps } from "./operations/transcript.ts";
import { ATTEMPT_TIMEOUT_MS } from "./webhooks/delivery.ts";
import { ownReadersOf, type ReaderContext, settingsOf } from "./platforms/own-reader.ts";
import type { Ask, Source } from "./platforms/source.ts";
import type { RunDeps } from "./media/run-plan.ts";
import { createSources, type SourceOf } from "./platforms/sources.ts";
import { X_SESSION_ORIGIN, xSessionFromCookieFile } from "./platforms/x/session-cookies.ts";
import { createXClient, type TweetClient, type XClient, xWebClientBearerToken } from "./platforms/x/client.ts";
import { createXThreads } from "./platforms/x/threads.ts";
import { type CookieFile, cookieFile, type Files } from "./platforms/tools/ytdlp/cookie-file.ts";
import { resolveJsRuntime } from "./platforms/tools/ytdlp/js-runtime.ts";
import { workerOptions } from "./platforms/tools/ytdlp/run.ts";
import { createPageClient, type PageClient } from "./platforms/tools/ytdlp/client.ts";
import { createGalleryClient, type GalleryClient } from "./platforms/tools/gallerydl/client.ts";
import { detectPlatform, platformOfHost, siteOf, trafficHosts } from "./platforms/table.ts";
import { type CookieJars, type CookieSource, createCookieJars } from "./platforms/cookie-jars.ts";
import { platformList } from "./platforms/list.ts";
import { createAsk } from "./operations/ask.ts";
import type { DownloadDeps } from "./operations/download.ts";
import { type PostDeps, postRecord } from "./operations/post.ts";
import { createPlatformChecks, type PlatformChecks } from "./doctor/checker.ts";
import { failureContext } from "./doctor/context.ts";
import type { PlatformRemedies } from "./doctor/classify.ts";
import { referencePosts } from "./doctor/reference-posts.ts";
import {
  createExtractionHost,
  type ExtractionHost,
  findInterpreter,
  hostReadiness,
  hostUnavailable,
} from "./processes/extraction-host.ts";
import { createCliExtractor, type Extractor, inBackground } from "./processes/extractor.ts";
import type { ProcessHost } from "./processes/process-host.ts";
import {
  createToolProbe,
  type ToolName,
  type ToolProbe,
  toolReadinessChecks,
  type ToolRuns,
  toolVersion,
} from "./processes/tools.ts";
import { type Happening, happening } from "./util/event.ts";

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

export interface AppDepsOptions {
  config: Config;
  runtime: Capabilities;
  /** Shared with the app, so the upstream clients count their calls; a fresh one when not given. */
  metrics?: ServiceMetrics;
  /** Injected so tests can move time without sleeping. */
  now?: () => Date;
  log?: Logger;
}

/** The app's parts that talk to the outside, and what start-up and shutdown hold on to. */
export interface AppParts extends DownloadDeps, PostDeps, TranscriptDeps {
  tweets: TweetClient;
  metrics: ServiceMetrics;
  readinessChecks: ReadinessCheck[];
  platformChecks: PlatformChecks;
  /** The extraction host: the service starts and closes it. */
  extractor: ExtractionHost;
  /** The sources jobs read through: the same readers, their tools run below interactive calls' (niced). */
  jobSources: SourceOf;
  /** The parts of the calls of an account that brought its own cookies (ACCOUNT_COOKIES, account-cookies/). */
  withCookies(cookies: CookieSource): CookiedParts;
  /** The egress gate: the service closes it. */
  gate: EgressGate;
  /** COOKIES_FILE; undefined without one. */
  cookies: CookieFile | undefined;
  /** The platforms' cookie jars, COOKIES_FILE their default. */
  jars: CookieJars;
  /** Where a webhook receiver may be: public addresses, and the operator's WEBHOOK_EXTRA_HOSTS. */
  webhookTargets: EgressPolicy;
  /** The client deliveries reach receivers through: every connection checked by `webhookTargets` and pinned. */
  webhookReceivers: Outbound;
}

/** What every builder reads. */
interface Wiring {
  config: Config;
  runtime: Capabilities;
  metrics: ServiceMetrics;
  now: () => Date;
  log: Logger;
  cookies: CookieFile | undefined;
  jars: CookieJars;
  /** Which proxy each connection leaves through. */
  outbound: OutboundRoutes;
  /** The media relay's and the outbound client's transport: through OUTBOUND_PROXY when it is set. */
  upstream: UpstreamClient;
  egress: EgressPolicy;
  /** The egress policy of the service's own readers: the platform APIs the operator configured are trusted too. */
  readerEgress: EgressPolicy;
  gate: EgressGate;
  /** A platform refused this server (502 upstream_blocked): metrics and the platform check listen. */
  blocked: Happening<[page: URL, error: ApiError]>;
}

/** What a call reads and fetches through over one cookie source: the operator's jars, or an account's own. */
export interface CookiedParts {
  sources: SourceOf;
  /** The same readers for jobs, their tools niced. */
  jobSources: SourceOf;
  pages: PageClient;
  tweets: TweetClient;
  runner: RunDeps;
}

/** The app's parts that talk to the outside, built from the configuration, counting their calls. */
export function createAppDeps(options: AppDepsOptions): AppParts {
  const wiring = wire(options);
  const { config, metrics, cookies, jars, gate, egress } = wiring;
  const tools = probedTools(wiring);
  const { extractor, clients } = extraction(wiring);
  const slots = operationSlots(config, metrics);
  const ask = createAsk({ tools, extractions: slots.extractions });
  const runner = {
    relay: relayOptions(wiring, jars),
    remux: remuxOptions(wiring),
    tools,
    slots,
    egress,
    clientStallTimeoutMs: config.CLIENT_STALL_TIMEOUT_S * 1000,
    exactCuts: config.CLIP_EXACT_CUTS === "on",
  };
  const shared = { ask, own: ownSources(wiring), clients, runner };
  // Without any cookies configured yt-dlp's kept descriptions serve a format's choice (client.ts).
  const operatorCookies = config.COOKIES_FILE === undefined && config.COOKIES_DIR === undefined &&
      config.platformCookieFiles.size === 0
    ? undefined
    : jars;
  const parts = cookiedParts(wiring, shared, jars, operatorCookies);
  const posts: PostDeps = {
    sources: parts.sources,
    tools,
    extractions: slots.extractions,
    extraPageHosts: config.EXTRA_PAGE_HOSTS,
    claims: extractorClaims(wiring),
    resolveLink: createLinkResolver(
      readerClient(wiring, {
        name: "The short link's host",
        timeoutMs: SHORT_LINK_TIMEOUT_MS,
        upstreamOf: () => "short_link",
      }),
    ),
  };
  const subtitleFiles = readerClient(wiring, {
    name: "The subtitle host",
    timeoutMs: SUBTITLE_TIMEOUT_MS,
    upstreamOf: () => "subtitle_host",
  });
  return {
    ...posts,
    ...parts,
    ask,
    subtitleFiles,
    ...webhookClients(wiring),
    metrics,
    platformChecks: platformChecks(wiring, posts, tools, extractor),
    extractor,
    withCookies: (own) => cookiedParts(wiring, shared, own, own),
    gate,
    cookies,
    jars,
    readinessChecks: [
      ...toolReadinessChecks(tools, wiring.now),
      hostReadiness(extractor),
      // A cookie file that cannot be used is a warning: the service works without it.
      ...(cookies === undefined ? [] : [{ name: "cookies", check: () => cookies.fault() }]),
    ],
  };
}

/**
 * The readers (with caches of their own), the X client and the relay over `cookies`, the tools'
 * runs over `toolCookies`: the operator's parts, or those of an account that brought its own
 * cookies (account-cookies/own-jar.ts), whose caches no other account's call reads.
 */
function cookiedParts(
  wiring: Wiring,
  shared: { ask: Ask; own: Map<string, Source>; clients: (cookies?: CookieSource) => ToolClientSets; runner: RunDeps },
  cookies: CookieSource,
  toolCookies: CookieSource | undefined,
): CookiedParts {
  const tweets = xClient(wiring, cookies);
  const xVideoHost = readerClient(wiring, {
    name: "X's video host",
    timeoutMs: wiring.config.X_TIMEOUT_MS,
    upstreamOf: () => "x_video",
  });
  const readers = { tweets, xVideoHost, xExpansion: createXThreads(tweets), own: shared.own };
  const { tools, jobTools } = shared.clients(toolCookies);
  return {
    tweets,
    pages: tools.pages,
    sources: createSources({ ...readers, ...tools }, shared.ask),
    jobSources: createSources({ ...readers, ...jobTools }, shared.ask),
    runner: { ...shared.runner, relay: relayOptions(wiring, cookies) },
  };
}

function wire(
  { config, runtime, metrics = createServiceMetrics(), now = () => new Date(), log = createLogger("warn") }:
    AppDepsOptions,
): Wiring {
  // A connection leaves through the proxy of its host's platform (OUTBOUND_PROXY_<PLATFORM>), else
  // OUTBOUND_PROXY: the media relay and the readers over the runtime's proxied client (fetch cannot be
  // pointed at a proxy on every runtime), yt-dlp and ffmpeg through the egress gate, which chains to it.
  const outbound = outboundRoutes(config, { metrics, now, log });
  const cookies = config.COOKIES_FILE === undefined
    ? undefined
    : cookieFile(runtime.files, config.COOKIES_FILE, (fault) => log.warn(fault, { setting: "COOKIES_FILE" }));
  const egress = {
    trusted: trustedEndpoints(config.EXTRA_PAGE_HOSTS, config.ORIGIN_OVERRIDES),
    resolveHost: runtime.resolveHost,
  };
  const extractionBudget = { maxBytes: config.EXTRACT_MAX_BYTES, bodyTimeoutMs: config.EXTRACT_BODY_TIMEOUT_S * 1000 };
  const gate = createEgressGate({
    policy: egress,
    outbound,
    listen: runtime.listenLoopback,
    originOverrides: config.ORIGIN_OVERRIDES,
    extractionBudget,
  });
  const blocked = happening<[page: URL, error: ApiError]>();
  blocked.on((page) => metrics.upstreamBlocked(detectPlatform(page, config.EXTRA_PAGE_HOSTS) ?? "OTHER"));
  const upstream = routedUpstream(outbound, runtime.upstream, runtime.proxiedUpstream);
  const readerEgress = { ...egress, trusted: new Set([...egress.trusted, ...apiEndpoints(config)]) };
  const jars = cookieJars(config, runtime.files, cookies, { metrics, now, log });
  return { config, runtime, metrics, now, log, cookies, jars, outbound, upstream, egress, readerEgress, gate, blocked };
}

/** Which proxy each connection leaves through; a platform's proxy that failed logged and counted as set aside. */
function outboundRoutes(
  config: Config,
  { metrics, now, log }: Pick<Wiring, "metrics" | "now" | "log">,
): OutboundRoutes {
  return createOutboundRoutes({
    fallback: config.OUTBOUND_PROXY ?? null,
    platforms: config.platformProxies,
    platformOfHost,
    setAsideMs: config.COOKIES_SET_ASIDE_S * 1000,
    now,
    onSetAside(platform, proxy, until) {
      log.warn(`a proxy of ${platform} (${proxy}) could not be reached; it is set aside`, {
        platform,
        proxy,
        until: until.toISOString(),
      });
      metrics.setAside(platform, "proxy", proxy);
    },
  });
}

/** The platforms' jars (COOKIES_DIR, COOKIES_FILE_<PLATFORM>), COOKIES_FILE their default; what is set aside logged and counted. */
function cookieJars(
  config: Config,
  files: Files,
  fallback: CookieFile | undefined,
  { metrics, now, log }: Pick<Wiring, "metrics" | "now" | "log">,
): CookieJars {
  return createCookieJars({
    files,
    dir: config.COOKIES_DIR,
    platformFiles: config.platformCookieFiles,
    fallback,
    platforms: platformList.map((row) => row.id),
    platformOfHost,
    trafficHosts,
    setAsideMs: config.COOKIES_SET_ASIDE_S * 1000,
    now,
    onFault: (fault) => log.warn(fault, { setting: "COOKIES_DIR" }),
    onSetAside(platform, account, reason, until) {
      log.warn(`${platform} refused the account ${account} of its cookie jar (${reason}); it is set aside`, {
        platform,
        account,
        until: until.toISOString(),
      });
      metrics.setAside(platform, "account", account);
    },
  });
}

/** The endpoints of the platform APIs the configuration names (X_SYNDICATION_URL, ...): the operator chose them. */
function apiEndpoints(config: Config): string[] {
  const bases = [
    config.X_SYNDICATION_URL,
    ...ownReadersOf(platformList).flatMap(({ reader }) => reader.endpoints?.(settingsOf(reader, config)) ?? []),
  ];
  if (config.X_GRAPHQL_URL !== "off") bases.push(config.X_GRAPHQL_URL);
  return bases.map((base) => {
    const url = new URL(base);
    return endpointKey(url.hostname, portOf(url));
  });
}

/** The media tools, probed in the background from now on; their versions go to the metrics. */
function probedTools({ config, runtime, metrics, now }: Wiring): ToolProbe {
  const paths = { "yt-dlp": config.YTDLP_PATH, "gallery-dl": config.GALLERY_DL_PATH, ffmpeg: config.FFMPEG_PATH };
  const tools = createToolProbe(runtime.toolRuns, paths, () => now().getTime());
  tools.changed.on((known) => {
    for (const name of Object.keys(known) as ToolName[]) metrics.toolInfo(name, toolVersion(known[name]));
  });
  return tools;
}

/**
 * How one of the service's own readers (X's, and those the platform modules hold) reaches its platform: the
 * outbound client, over OUTBOUND_PROXY when there is one, each exchange counted by the upstream it went to.
 */
function readerClient(
  { config, metrics, upstream, readerEgress }: Wiring,
  reader: { name: string; timeoutMs: number; upstreamOf: (url: URL) => Upstream },
): Outbound {
  return createOutbound({
    name: reader.name,
    timeoutMs: reader.timeoutMs,
    upstream,
    policy: readerEgress,
    originOverrides: config.ORIGIN_OVERRIDES,
    onExchange: (url, status) =>
      metrics.upstreamCalled(reader.upstreamOf(url), status !== null && isHealthyStatus(status)),
  });
}

/** Where webhooks may be delivered, and the client that delivers them. */
function webhookClients({ config, runtime, upstream }: Wiring): Pick<AppParts, "webhookTargets" | "webhookReceivers"> {
  const webhookTargets = {
    trusted: trustedEndpoints(config.WEBHOOK_EXTRA_HOSTS, new Map()),
    resolveHost: runtime.resolveHost,
  };
  const webhookReceivers = createOutbound({
    name: "The webhook receiver",
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    upstream,
    policy: webhookTargets,
    originOverrides: new Map(),
  });
  return { webhookTargets, webhookReceivers };
}

/** X's syndication and GraphQL clients, counting each call by the endpoint it went to. */
function xClient(wiring: Wiring, jars: CookieSource): XClient {
  const { config, metrics, now } = wiring;
  const graphqlBase = config.X_GRAPHQL_URL === "off" ? null : config.X_GRAPHQL_URL.replace(/\/+$/, "");
  const graphql = graphqlBase === null ? null : {
    guestActivateUrl: `${graphqlBase}/1.1/guest/activate.json`,
    tweetResultUrl: `${graphqlBase}/graphql/${config.X_GRAPHQL_QUERY_ID}/TweetResultByRestId`,
    tweetDetailUrl: `${graphqlBase}/graphql/${config.X_TWEET_DETAIL_QUERY_ID}/TweetDetail`,
    userByScreenNameUrl: `${graphqlBase}/graphql/${config.X_USER_BY_SCREEN_NAME_QUERY_ID}/UserByScreenName`,
    userTweetsUrl: `${graphqlBase}/graphql/${config.X_USER_TWEETS_QUERY_ID}/UserTweets`,
    bearerToken: xWebClientBearerToken,
  };
  const xUpstreamOf = ({ href }: URL) =>
    graphql === null
      ? "x_syndication"
      : href.startsWith(graphql.guestActivateUrl)
      ? "x_guest_token"
      : href.startsWith(`${graphqlBase}/graphql/`)
      ? "x_graphql"
      : "x_syndication";
  return createXClient({
    outbound: readerClient(wiring, { name: "X", timeoutMs: config.X_TIMEOUT_MS, upstreamOf: xUpstreamOf }),
    syndicationUrl: config.X_SYNDICATION_URL,
    graphql,
    cacheTtlMs: config.X_CACHE_TTL_S * 1000,
    cacheMaxEntries: config.X_CACHE_MAX_ENTRIES,
    session: async () => {
      const taken = await jars.take(X_SESSION_ORIGIN);
      const session = taken === null ? null : xSessionFromCookieFile(new TextDecoder().decode(taken.content), now());
      return session === null ? null : { ...session, refused: taken!.refused };
    },
    onAnswer: (path) => metrics.xSource(path),
  });
}

/** With SUPPORTED_SITES=all, which extractor of the installed tools claims a link outside the table. */
function extractorClaims({ config, runtime }: Wiring): ExtractorClaims | null {
  if (config.SUPPORTED_SITES === "listed") return null;
  return createExtractorClaims({
    processes: runtime.processes,
    interpreter: async () => {
      const found = await findInterpreter(runtime.toolRuns, config.YTDLP_PATH);
      return "interpreter" in found ? found.interpreter : null;
    },
    timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
  });
}

/** The readers of the service's own (a platform module's `ownReader`), each built with its settings and a context of the wiring's. */
function ownSources(wiring: Wiring): Map<string, Source> {
  const { config, blocked } = wiring;
  return new Map(
    ownReadersOf(platformList).map(({ platform, reader }) => {
      const context: ReaderContext = {
        platform,
        outbound: (name, timeoutMs) =>
          readerClient(wiring, { name, timeoutMs, upstreamOf: () => platform.id.toLowerCase() as Lowercase<string> }),
        cache: { ttlMs: config.PAGE_CACHE_TTL_S * 1000, maxEntries: OWN_READER_CACHE_ENTRIES },
        originOverrides: config.ORIGIN_OVERRIDES,
        onBlocked: blocked.emit,
      };
      return [platform.id, reader.build(context, settingsOf(reader, config))];
    }),
  );
}

/** The posts each reader of the service's own keeps. */
const OWN_READER_CACHE_ENTRIES = 500;

/** 0 turns the cut of a quiet source off, for direct and page mode alike. */
const idleTimeoutMs = (
  config: Config,
) => (config.DOWNLOAD_IDLE_TIMEOUT_S === 0 ? undefined : config.DOWNLOAD_IDLE_TIMEOUT_S * 1000);

function relayOptions({ config, runtime, metrics, upstream, now }: Wiring, jars: CookieSource): RelayOptions {
  return {
    upstream: countedUpstream(upstream, metrics),
    onUndeclaredBytes: (count: number) => metrics.relayedBytes("direct", count),
    originOverrides: config.ORIGIN_OVERRIDES,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    firstByteTimeoutMs: config.DIRECT_TIMEOUT_MS,
    idleTimeoutMs: idleTimeoutMs(config),
    resolveHost: runtime.resolveHost,
    cookies: async (url: URL) => {
      // Read for every use, like the tools' copies: the jar of the platform whose host this is.
      const taken = await jars.take(url);
      return taken === null ? null : cookieHeaderFor(new TextDecoder().decode(taken.content), url, now());
    },
  };
}

function remuxOptions({ config, runtime, metrics, gate }: Wiring): RemuxOptions {
  return {
    processes: runtime.processes,
    ffmpegPath: config.FFMPEG_PATH,
    limits: defaultFfmpegLimits,
    timeoutMs: config.PAGE_TIMEOUT_S * 1000,
    maxBytes: config.MAX_DOWNLOAD_BYTES,
    onChild: () => metrics.childStarted("ffmpeg"),
    onBytes: (count: number) => metrics.relayedBytes("page", count),
    gate,
    idleTimeoutMs: idleTimeoutMs(config),
    // HLS playlists are fetched by the service through the gate session, as ffmpeg's fetches go.
    playlistClient: (proxyUrl: string) => runtime.proxiedUpstream(parseOutboundProxy(proxyUrl)!),
  };
}

/** The descriptions yt-dlp and gallery-dl give. */
interface ToolClients {
  pages: PageClient;
  galleries: GalleryClient;
}

/** Interactive calls' tool clients, and jobs' (whose tools run niced). */
interface ToolClientSets {
  tools: ToolClients;
  jobTools: ToolClients;
}

/**
 * The extraction host, and the descriptions yt-dlp and gallery-dl read through it over a cookie
 * source: interactive calls' and jobs' (whose tools run niced), each with their own caches.
 */
function extraction(
  { config, runtime, metrics, gate, blocked }: Wiring,
): { extractor: ExtractionHost; clients: (cookies?: CookieSource) => ToolClientSets } {
  const extractor = createExtractionHost({
    processes: runtime.processes,
    toolRuns: runtime.toolRuns,
    ytdlpPath: config.YTDLP_PATH,
    galleryDlPath: config.GALLERY_DL_PATH,
    cli: createCliExtractor(
      runtime.processes,
      { "yt-dlp": config.YTDLP_PATH, "gallery-dl": config.GALLERY_DL_PATH },
      config.EXTRACT_MEMORY_MB * 2 ** 20,
    ),
    enabled: config.EXTRACTION_HOST === "on",
    maxMemoryBytes: config.EXTRACT_MEMORY_MB * 2 ** 20,
    workerOptions,
    onStatus: (status) =>
      status.state === "ready"
        ? metrics.extractionHost(status.state, status.versions["yt-dlp"] ?? "", status.rssBytes)
        : metrics.extractionHost(status.state, "", 0),
  });
  // What both tools' descriptions are read with: the same caps, cache, gate, cookies and metrics.
  const clients = (extractor: Extractor, cookies: CookieSource | undefined): ToolClients => {
    const shared = {
      extractor,
      files: runtime.files,
      timeoutMs: config.EXTRACT_TIMEOUT_S * 1000,
      socketTimeoutSec: Math.min(20, config.EXTRACT_TIMEOUT_S),
      cacheTtlMs: config.PAGE_CACHE_TTL_S * 1000,
      cacheMaxEntries: 500,
      gate,
      cookies,
      onBlocked: blocked.emit,
    };
    return {
      pages: createPageClient({
        ...shared,
        maxItems: config.PLAYLIST_MAX_ITEMS,
        onChild: () => metrics.childStarted("yt-dlp"),
        jsRuntime: resolveJsRuntime(config.YTDLP_JS_RUNTIME, runtime.automaticJsRuntime),
        poTokens: config.PO_TOKEN_URL === undefined
          ? undefined
          : { url: config.PO_TOKEN_URL.replace(/\/+$/, ""), timeoutMs: config.PO_TOKEN_TIMEOUT_MS },
      }),
      galleries: createGalleryClient({
        ...shared,
        maxItems: config.PLAYLIST_MAX_ITEMS,
        onChild: () => metrics.childStarted("gallery-dl"),
        caFile: config.GALLERY_DL_CA_FILE,
      }),
    };
  };
  const niced = inBackground(extractor, config.JOB_NICENESS);
  return {
    extractor,
    clients: (cookies) => ({ tools: clients(extractor, cookies), jobTools: clients(niced, cookies) }),
  };
}

/**
 * Which remedies for its walls each platform has: its jar (else COOKIES_FILE), its proxies (else OUTBOUND_PROXY), a
 * token server; what was set aside and why, whether each proxy answered when last used, and whether the token server
 * answers now.
 */
function platformRemedies({ config, jars, outbound }: Wiring): (site: string) => Promise<PlatformRemedies | undefined> {
  return async (site) => {
    if (!platformList.some((row) => row.id === site)) return undefined;
    const jar = (await jars.listing()).find((each) => each.platform === site);
    const routes = outbound.listing();
    const own = routes.find((each) => each.platform === site) ?? routes.find((each) => each.platform === "*");
    const aside = (name: string, until: string | null, why: string | null) =>
      until === null ? [] : [`${name} until ${until}${why === null ? "" : ` (${why})`}`];
    const takesTokens = platformList.find((row) => row.id === site)?.poTokens === true;
    return {
      platform: site,
      jar: jar !== undefined
        ? {
          accounts: jar.accounts.length,
          setAside: jar.accounts.flatMap((each) => aside(each.account, each.setAsideUntil, each.reason)),
        }
        : config.COOKIES_FILE === undefined
        ? null
        : { accounts: 1, setAside: [] },
      proxies: own === undefined ? null : {
        count: own.proxies.length,
        setAside: own.proxies.flatMap((each) => aside(each.proxy, each.setAsideUntil, each.reason)),
        heard: own.proxies.map((each) => heardOf(each)),
      },
      tokenServer: takesTokens ? config.PO_TOKEN_URL !== undefined : null,
      tokenServerFault: takesTokens && config.PO_TOKEN_URL !== undefined ? await tokenServerFault(config) : null,
    };
  };
}

/** "10.0.0.5:1080 answered at ...", "... failed at ... (connection refused)", or "... not used yet". */
function heardOf(state: ProxyState): string {
  if (state.lastHeard === null) return `${state.proxy} not used yet`;
  return state.lastHeard.answered
    ? `${state.proxy} answered at ${state.lastHeard.at}`
    : `${state.proxy} failed at ${state.lastHeard.at} (${state.reason})`;
}

/**
 * Null when the token server answers an HTTP request (bgutil's `GET /ping`, any status) within PO_TOKEN_TIMEOUT_MS,
 * else why not. Asked straight, as the extraction host asks it (not through the egress gate): it is the operator's.
 */
async function tokenServerFault(config: Config): Promise<string | null> {
  const url = `${config.PO_TOKEN_URL!.replace(/\/+$/, "")}/ping`;
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(config.PO_TOKEN_TIMEOUT_MS) });
    await answer.body?.cancel();
    return null;
  } catch (error) {
    return `did not answer within ${config.PO_TOKEN_TIMEOUT_MS} ms (${connectFailureOf(error) ?? String(error)})`;
  }
}

/** The platform check: its reference posts read as `post` reads them; a user's blocked request marks its platform too. */
function platformChecks(
  wiring: Wiring,
  posts: PostDeps,
  tools: ToolProbe,
  extractor: ExtractionHost,
): PlatformChecks {
  const { config, metrics, cookies, now, blocked } = wiring;
  const checks = createPlatformChecks({
    posts: referencePosts(config.PLATFORM_CHECK_POSTS, config.EXTRA_PAGE_HOSTS),
    fetchPost: (url) => postRecord(posts, url, { check: true }),
    siteOf: (page) => siteOf(page, config.EXTRA_PAGE_HOSTS),
    context: failureContext({ tools, cookies, now, remedies: platformRemedies(wiring) }),
    onResult: (result) =>
      metrics.platformChecked(
        result.site,
        result.status === "ok",
        result.from === "check" && result.at !== null ? new Date(result.at) : null,
      ),
    extractionNote: () => hostUnavailable(extractor),
    now,
  });
  blocked.on((page, error) => void checks.noteFailure(page, error));
  return checks;
}
