// What the service counts, and the small hooks the rest of the code calls to count it. One
// instance per app (tests build many apps in one process); /metrics renders it.
import type { Download } from "../auth/api-context.ts";
import type { SlotKind } from "../limits/slots.ts";
import { type Counter, type Gauge, Registry } from "./registry.ts";

export type DownloadMode = Download["mode"];
/**
 * Who the service called: X's two tweet APIs, X's guest-token endpoint, X's video host (a video's captions), a short
 * link's host, a media host, or the platform a reader of the service's own reads, by its id in lower case.
 */
export type Upstream =
  | "x_syndication"
  | "x_graphql"
  | "x_guest_token"
  | "x_video"
  | "short_link"
  | "media_host"
  | Lowercase<string>;
export type ChildTool = "yt-dlp" | "gallery-dl" | "ffmpeg";

// Seconds; a tweet answer from cache takes a few ms, a cold page-mode start several seconds.
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface ServiceMetrics {
  /** One finished request: `route` is the route's pattern or "unmatched", never the raw path. */
  requestServed(route: string, status: number, seconds: number): void;
  /** Call when a download starts; call the returned function (any number of times) when it ends. */
  downloadStarted(mode: DownloadMode): () => void;
  relayedBytes(mode: DownloadMode, bytes: number): void;
  /** A download whose body was cut after its head (the client sees a broken transfer), by its cause's problem code. */
  transferBroken(mode: DownloadMode, cause: string): void;
  upstreamCalled(upstream: Upstream, ok: boolean): void;
  /** A 429 at admission (quota_exceeded, burst_exceeded) or from a download cap (too_many_downloads). */
  quotaRefused(tier: string, code: string): void;
  /** How many slots of a kind are held now, of how many the instance has. */
  slotsHeld(kind: SlotKind, held: number, limit: number): void;
  /** A slot of a kind was taken: a piece of that work began. */
  slotTaken(kind: SlotKind): void;
  /** Call when a child process starts; call the returned function when it has exited. */
  childStarted(tool: ChildTool): () => void;
  /** The version of a tool this instance runs now (null: it cannot be run); the one before falls to 0. */
  toolInfo(tool: ChildTool, version: string | null): void;
  /**
   * What the extraction host is doing now: its state (`ready` when in use), the yt-dlp version it
   * loaded and its RSS in bytes ("" and 0 unless it is ready).
   */
  extractionHost(state: string, ytdlpVersion: string, rssBytes: number): void;
  /** A platform refused this server (bot check, sign-in wall, rate limit): 502 upstream_blocked. */
  upstreamBlocked(platform: string): void;
  /** A platform refused an account of its jar (or a proxy of its list failed), which is set aside for a while. */
  setAside(platform: string, kind: "account" | "proxy", name: string): void;
  /**
   * What the platform check learnt of a site (a platform, or an extra page host): whether it works,
   * and when its reference post was last checked (null when a user's refused request told).
   */
  platformChecked(site: string, up: boolean, checkedAt: Date | null): void;
  /**
   * Which path answered an X post: syndication, GraphQL as a guest, or as the operator's account
   * (`syndication`, `guest`, `cookies`), as X's source tells it when the metrics are wired in.
   */
  xSource(path: string): void;
  /** The Prometheus text exposition of everything above. */
  render(): string;
}

/** Every series /metrics shows, with its help text: the names are the operators' contract. */
function defineSeries(registry: Registry) {
  const define: Define = {
    counter: (name, help, labels) => registry.counter({ name, help, labels }),
    gauge: (name, help, labels) => registry.gauge({ name, help, labels }),
  };
  return { ...trafficSeries(registry, define), ...workSeries(define), ...platformSeries(define) };
}

type Define = {
  counter: <L extends string>(name: string, help: string, labels: readonly L[]) => Counter<L>;
  gauge: <L extends string>(name: string, help: string, labels: readonly L[]) => Gauge<L>;
};

/** Requests, their latency and the downloads' bytes. */
function trafficSeries(registry: Registry, { counter, gauge }: Define) {
  return {
    requests: counter("media_api_requests_total", "Requests answered, by route pattern and status.", [
      "route",
      "status",
    ]),
    latency: registry.histogram({
      name: "media_api_request_duration_seconds",
      help: "Time from request to response head, by route pattern (a streamed body's transfer is not included).",
      labels: ["route"],
      buckets: latencyBuckets,
    }),
    bytes: counter(
      "media_api_relayed_bytes_total",
      "Body bytes of successful downloads, by mode (the declared Content-Length, or the bytes counted when none is declared).",
      ["mode"],
    ),
    activeDownloads: gauge("media_api_downloads_active", "Downloads in progress, by mode.", ["mode"]),
    broken: counter(
      "media_api_broken_transfers_total",
      "Downloads cut after their head was sent (the client sees a broken transfer), by mode and cause (the problem code).",
      ["mode", "cause"],
    ),
  };
}

/** Upstream calls, refusals, slots, children and the media tools. */
function workSeries({ counter, gauge }: Define) {
  return {
    upstreamCalls: counter("media_api_upstream_calls_total", "Calls to upstream services, by upstream.", ["upstream"]),
    upstreamFailures: counter(
      "media_api_upstream_failures_total",
      "Upstream calls that failed (no answer, or an answer that means the upstream is in trouble), by upstream.",
      ["upstream"],
    ),
    refusals: counter("media_api_quota_refusals_total", "Requests refused with 429, by key tier and problem code.", [
      "tier",
      "code",
    ]),
    slotsHeld: gauge(
      "media_api_slots_held",
      "Slots held now, by kind of work (extractions, remuxes, encodes, directDownloads).",
      ["kind"],
    ),
    slotsTaken: counter(
      "media_api_slots_taken_total",
      "Slots taken, by kind of work: the pieces of work begun (with media_api_slots_held, how long one is held).",
      ["kind"],
    ),
    slotsLimit: gauge(
      "media_api_slots_limit",
      "Slots this instance has, by kind of work (MAX_EXTRACTIONS, MAX_REMUXES, MAX_ENCODES, MAX_DIRECT_DOWNLOADS).",
      ["kind"],
    ),
    children: gauge("media_api_child_processes", "Child processes running, by tool.", ["tool"]),
    tools: gauge(
      "media_api_tool_info",
      "1 for the version of each media tool this instance runs now; 0 for one it ran before.",
      ["tool", "version"],
    ),
    host: gauge(
      "media_api_extraction_host_info",
      "1 for the extraction host's present state (ready: in use; starting, unavailable, off: each extraction starts the tool's program) and the yt-dlp version it loaded; 0 for earlier ones.",
      ["state", "ytdlp_version"],
    ),
    hostRss: gauge(
      "media_api_extraction_host_rss_bytes",
      "Resident memory of the extraction host (without its children), as of its last job or its last idle minute.",
      [],
    ),
  };
}

/** What the platforms did: refusals, the platform check, X's paths. */
function platformSeries({ counter, gauge }: Define) {
  return {
    blocked: counter(
      "media_api_upstream_blocked_total",
      "Requests a platform refused to this server (bot check, sign-in or age wall, rate limit), by platform.",
      ["platform"],
    ),
    setAside: counter(
      "media_api_set_aside_total",
      "Accounts of a platform's cookie jar its platform refused, and proxies of a platform's list that failed, each set aside for COOKIES_SET_ASIDE_S; by platform, kind (account, proxy) and name (the account's file, the proxy's host:port).",
      ["platform", "kind", "name"],
    ),
    platformUp: gauge(
      "media_api_platform_up",
      "1 when the platform's reference post came through at the last check, 0 when it failed or users' requests have been refused since (admin doctor, GET /platformz).",
      ["platform"],
    ),
    platformChecked: gauge(
      "media_api_platform_checked_timestamp_seconds",
      "When the platform's reference post was last checked, in seconds since the epoch.",
      ["platform"],
    ),
    xSources: counter(
      "media_api_x_source_total",
      "X posts fetched, by the path that answered: syndication, guest (GraphQL with a guest token), cookies (GraphQL as the operator's account).",
      ["path"],
    ),
  };
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const series = defineSeries(registry);
  let hostSeries: { state: string; ytdlp_version: string } | undefined;
  const toolVersions = new Map<ChildTool, string>();
  return {
    requestServed(route, status, seconds) {
      series.requests.inc({ route, status: String(status) });
      series.latency.observe({ route }, seconds);
    },
    downloadStarted: (mode) => holdGauge(series.activeDownloads, { mode }),
    relayedBytes: (mode, count) => series.bytes.inc({ mode }, count),
    transferBroken: (mode, cause) => series.broken.inc({ mode, cause }),
    upstreamCalled(upstream, ok) {
      series.upstreamCalls.inc({ upstream });
      if (!ok) series.upstreamFailures.inc({ upstream });
    },
    quotaRefused: (tier, code) => series.refusals.inc({ tier, code }),
    slotsHeld(kind, held, limit) {
      series.slotsHeld.set({ kind }, held);
      series.slotsLimit.set({ kind }, limit);
    },
    slotTaken: (kind) => series.slotsTaken.inc({ kind }),
    childStarted: (tool) => holdGauge(series.children, { tool }),
    toolInfo(tool, version) {
      const before = toolVersions.get(tool);
      if (before === version) return;
      if (before !== undefined) series.tools.set({ tool, version: before }, 0);
      if (version === null) return void toolVersions.delete(tool);
      toolVersions.set(tool, version);
      series.tools.set({ tool, version }, 1);
    },
    extractionHost(state, ytdlpVersion, rssBytes) {
      const now = { state, ytdlp_version: ytdlpVersion };
      if (hostSeries) series.host.set(hostSeries, 0);
      series.host.set(now, 1);
      hostSeries = now;
      series.hostRss.set({}, rssBytes);
    },
    upstreamBlocked: (platform) => series.blocked.inc({ platform }),
    setAside: (platform, kind, name) => series.setAside.inc({ platform, kind, name }),
    platformChecked(platform, up, checkedAt) {
      series.platformUp.set({ platform }, up ? 1 : 0);
      if (checkedAt !== null) series.platformChecked.set({ platform }, checkedAt.getTime() / 1000);
    },
    xSource: (path) => series.xSources.inc({ path }),
    render: () => registry.render(),
  };
}

function holdGauge<L extends string>(
  gauge: { inc(labels: Record<L, string>): void; dec(labels: Record<L, string>): void },
  labels: Record<L, string>,
): () => void {
  gauge.inc(labels);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    gauge.dec(labels);
  };
}
