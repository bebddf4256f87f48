// What the service counts, and the small hooks the rest of the code calls to count it. One
// instance per app (tests build many apps in one process); /metrics renders it.
import type { XSourcePath } from "../platforms/x/source.ts";
import type { HostStatus } from "../processes/extraction-host.ts";
import { Registry } from "./registry.ts";

export type DownloadMode = "direct" | "page";
/** Who the service called: X's two tweet APIs, X's guest-token endpoint, a media host. */
export type Upstream = "x_syndication" | "x_graphql" | "x_guest_token" | "bluesky" | "media_host";
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
  /** Call when a child process starts; call the returned function when it has exited. */
  childStarted(tool: ChildTool): () => void;
  /** The version of a tool this instance runs (set once at start-up). */
  toolInfo(tool: ChildTool, version: string): void;
  /** What the extraction host is doing now (in use or not, the yt-dlp it loaded, its RSS). */
  extractionHost(status: HostStatus): void;
  /** A platform refused this server (bot check, sign-in wall, rate limit): 502 upstream_blocked. */
  upstreamBlocked(platform: string): void;
  /**
   * What the platform check learnt of a site (a platform, or an extra page host): whether it works,
   * and when its reference post was last checked (null when a user's refused request told).
   */
  platformChecked(site: string, up: boolean, checkedAt: Date | null): void;
  /** Which path answered an X post: syndication, GraphQL as a guest, or as the operator's account. */
  xSource(path: XSourcePath): void;
  /** The Prometheus text exposition of everything above. */
  render(): string;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  const requests = registry.counter({
    name: "media_api_requests_total",
    help: "Requests answered, by route pattern and status.",
    labels: ["route", "status"],
  });
  const latency = registry.histogram({
    name: "media_api_request_duration_seconds",
    help: "Time from request to response head, by route pattern (a streamed body's transfer is not included).",
    labels: ["route"],
    buckets: latencyBuckets,
  });
  const bytes = registry.counter({
    name: "media_api_relayed_bytes_total",
    help: "Body bytes of successful downloads, by mode (the declared Content-Length, or the bytes counted when none is declared).",
    labels: ["mode"],
  });
  const activeDownloads = registry.gauge({
    name: "media_api_downloads_active",
    help: "Downloads in progress, by mode.",
    labels: ["mode"],
  });
  const broken = registry.counter({
    name: "media_api_broken_transfers_total",
    help: "Downloads cut after their head was sent (the client sees a broken transfer), by mode and cause (the problem code).",
    labels: ["mode", "cause"],
  });
  const upstreamCalls = registry.counter({
    name: "media_api_upstream_calls_total",
    help: "Calls to upstream services, by upstream.",
    labels: ["upstream"],
  });
  const upstreamFailures = registry.counter({
    name: "media_api_upstream_failures_total",
    help: "Upstream calls that failed (no answer, or an answer that means the upstream is in trouble), by upstream.",
    labels: ["upstream"],
  });
  const refusals = registry.counter({
    name: "media_api_quota_refusals_total",
    help: "Requests refused with 429, by key tier and problem code.",
    labels: ["tier", "code"],
  });
  const children = registry.gauge({
    name: "media_api_child_processes",
    help: "Child processes running, by tool.",
    labels: ["tool"],
  });
  const tools = registry.gauge({
    name: "media_api_tool_info",
    help: "Always 1: the version of each media tool this instance runs.",
    labels: ["tool", "version"],
  });
  const host = registry.gauge({
    name: "media_api_extraction_host_info",
    help: "1 for the extraction host's present state (ready: in use; starting, unavailable, off: each extraction starts the tool's program) and the yt-dlp version it loaded; 0 for earlier ones.",
    labels: ["state", "ytdlp_version"],
  });
  const hostRss = registry.gauge({
    name: "media_api_extraction_host_rss_bytes",
    help: "Resident memory of the extraction host (without its children), as of its last job or its last idle minute.",
    labels: [],
  });
  let hostSeries: { state: string; ytdlp_version: string } | undefined;
  const blocked = registry.counter({
    name: "media_api_upstream_blocked_total",
    help: "Requests a platform refused to this server (bot check, sign-in or age wall, rate limit), by platform.",
    labels: ["platform"],
  });
  const platformUp = registry.gauge({
    name: "media_api_platform_up",
    help: "1 when the platform's reference post came through at the last check, 0 when it failed or users' requests have been refused since (admin doctor, GET /platformz).",
    labels: ["platform"],
  });
  const platformChecked = registry.gauge({
    name: "media_api_platform_checked_timestamp_seconds",
    help: "When the platform's reference post was last checked, in seconds since the epoch.",
    labels: ["platform"],
  });
  const xSources = registry.counter({
    name: "media_api_x_source_total",
    help: "X posts fetched, by the path that answered: syndication, guest (GraphQL with a guest token), cookies (GraphQL as the operator's account).",
    labels: ["path"],
  });

  return {
    requestServed(route, status, seconds) {
      requests.inc({ route, status: String(status) });
      latency.observe({ route }, seconds);
    },
    downloadStarted: (mode) => holdGauge(activeDownloads, { mode }),
    relayedBytes: (mode, count) => bytes.inc({ mode }, count),
    transferBroken: (mode, cause) => broken.inc({ mode, cause }),
    upstreamCalled(upstream, ok) {
      upstreamCalls.inc({ upstream });
      if (!ok) upstreamFailures.inc({ upstream });
    },
    quotaRefused: (tier, code) => refusals.inc({ tier, code }),
    childStarted: (tool) => holdGauge(children, { tool }),
    toolInfo(tool, version) {
      if (tools.get({ tool, version }) === 0) tools.inc({ tool, version });
    },
    extractionHost(status) {
      const series = { state: status.state, ytdlp_version: status.state === "ready" ? (status.versions["yt-dlp"] ?? "") : "" };
      if (hostSeries) host.dec(hostSeries, host.get(hostSeries));
      host.inc(series);
      hostSeries = series;
      hostRss.inc({}, (status.state === "ready" ? status.rssBytes : 0) - hostRss.get({}));
    },
    upstreamBlocked: (platform) => blocked.inc({ platform }),
    platformChecked(platform, up, checkedAt) {
      platformUp.set({ platform }, up ? 1 : 0);
      if (checkedAt !== null) platformChecked.set({ platform }, checkedAt.getTime() / 1000);
    },
    xSource: (path) => xSources.inc({ path }),
    render: () => registry.render(),
  };
}

function holdGauge<L extends string>(gauge: { inc(labels: Record<L, string>): void; dec(labels: Record<L, string>): void }, labels: Record<L, string>): () => void {
  gauge.inc(labels);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    gauge.dec(labels);
  };
}
