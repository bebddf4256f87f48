// What the app is built from: the outside world the operations reach, handed in by createAppDeps
// (app-deps.ts). Its own module, so that the app and its two paths (api.ts, site.ts) all name it
// without importing one another.
import type { TranscriptDeps } from "../operations/transcript.ts";
import type { Config } from "../config.ts";
import type { PlatformChecks } from "../doctor/checker.ts";
import type { ReadinessCheck } from "../http/readiness.ts";
import type { DownloadDeps } from "../operations/download.ts";
import type { PostDeps } from "../operations/post.ts";
import type { TweetClient } from "../platforms/x/client.ts";
import type { Logger } from "../log.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";
import type { Db } from "../store/db.ts";
import type { DeliveryDeps } from "../webhooks/delivery.ts";
import type { Jobs } from "../jobs/runner.ts";
import type { Watches } from "../watches/runner.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { AccountParts } from "../account-cookies/own-jar.ts";

/** The outside world the operations reach: X, media hosts, yt-dlp and ffmpeg (built by createAppDeps). */
export interface AppDeps extends DownloadDeps, PostDeps, TranscriptDeps {
  tweets: TweetClient;
  config: Pick<
    Config,
    | "ACCOUNT_COOKIES"
    | "CORS_ORIGIN"
    | "HEALTH_TIMEOUT_MS"
    | "LINK_TTL_S"
    | "METRICS_TOKEN"
    | "PUBLIC_URL"
    | "SIGNUP"
    | "SIGNUPS_PER_CLIENT"
    | "TRUST_PROXY"
    | "WATCH_MIN_EVERY_S"
  >;
  db: Db;
  /** The job queue's side of this instance (src/jobs/); without it the jobs' operations answer 503. */
  jobs?: Jobs | null;
  /** The watches' runs on the same queue (src/watches/runner.ts); without them creating or resuming a watch answers 503. */
  watches?: Watches | null;
  /** Webhook deliveries on the same queue (src/webhooks/); without them the owner's page cannot resend. */
  deliveries?: DeliveryDeps | null;
  /** Where a webhook receiver may be: public addresses, and the operator's WEBHOOK_EXTRA_HOSTS. */
  webhookTargets: EgressPolicy;
  /** ACCOUNT_COOKIES=on: what the calls of an account that brought its own cookies read and fetch through. */
  accountParts?: AccountParts<Pick<AppDeps, "sources" | "pages" | "tweets" | "runner">>;
  log: Logger;
  /** Injected so tests can move time without sleeping. */
  now?: () => Date;
  /** Shared with the upstream clients so they count their calls; a fresh one when not given. */
  metrics?: ServiceMetrics;
  /** Checks /readyz runs besides the store's, such as the media tools' presence. */
  readinessChecks?: ReadinessCheck[];
  /** The platform check, whose latest picture GET /platformz shows. */
  platformChecks?: PlatformChecks;
}
