// The account features on the queue every instance shares, composed: webhook deliveries, jobs (whose
// settling tells the webhooks) and watches (whose runs are jobs, and whose jobs end as
// `watch.found`). `work` starts this instance's workers in the order they need. And the parts of
// the calls of an account that brought its own cookies (ACCOUNT_COOKIES), which the API and the jobs both use.
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Queue } from "../queue/queue.ts";
import type { Db } from "../store/db.ts";
import { jobEvents } from "../jobs/events.ts";
import { createJobs, type Jobs } from "../jobs/runner.ts";
import { inBackground, type JobDeps, jobSettingsOf } from "../jobs/background.ts";
import type { Outbound } from "../net/outbound.ts";
import { watchFound } from "../watches/events.ts";
import { createWatches, type Watches } from "../watches/runner.ts";
import { createEvents, type Events } from "../webhooks/events.ts";
import { type AccountParts, ownJars } from "../account-cookies/own-jar.ts";
import type { CookieSource } from "../platforms/cookie-jars.ts";
import type { SourceOf } from "../platforms/sources.ts";
import { platformOfHost, trafficHosts } from "../platforms/table.ts";

export interface Features {
  events: Events;
  jobs: Jobs;
  watches: Watches;
  /** Starts this instance's workers on the queue. */
  work(): Promise<void>;
}

export function createFeatures(options: {
  config: Config;
  db: Db;
  queue: Queue;
  /** What the jobs read posts with (the `post` verb's parts), and the client that reaches webhook receivers. */
  parts: Omit<JobDeps, "db" | "log" | "now" | "settings" | "events"> & { webhookReceivers: Outbound };
  log: Logger;
  now: () => Date;
  /** A receiver checks a signature's timestamp against its own clock: deliveries keep real time. */
  deliveriesNow?: () => Date;
  /** ACCOUNT_COOKIES=on: the parts of an account's calls over its own cookies (accountPartsOf). */
  accountParts?: AccountParts<{ jobSources: SourceOf }>;
}): Features {
  const { config, db, queue, parts, log, now } = options;
  const events = createEvents({
    db,
    queue,
    schedule: config.WEBHOOK_RETRY_SCHEDULE,
    receivers: parts.webhookReceivers,
    now: options.deliveriesNow ?? now,
    log,
  });
  const settings = jobSettingsOf(config);
  const told = jobEvents({
    ...events.deliveries,
    db,
    watchFound,
    links: { publicUrl: config.PUBLIC_URL, ttlS: config.LINK_TTL_S, now },
  });
  const { accountParts } = options;
  const accountSources = accountParts === undefined
    ? undefined
    : async (accountId: number) => (await accountParts(accountId))?.jobSources ?? null;
  // One jobs' share of the extraction slots for both: a watch's run is background work as a job's is.
  const jobDeps = inBackground({ ...parts, db, log, now, settings, events: told, accountSources });
  const [jobs, watches] = [createJobs(jobDeps, queue), createWatches(jobDeps, queue)];
  return {
    events,
    jobs,
    watches,
    async work() {
      // Deliveries' queue first: a job settling inside a transaction must find it made (see Queue.send).
      await events.work();
      await jobs.work();
      // After the jobs' queues: a watch's run queues its job's items inside a transaction.
      await watches.work();
    },
  };
}

/**
 * With ACCOUNT_COOKIES=on, the parts the calls of an account that uploaded its own cookies go
 * through: `withCookies` over its files, the operator's `jars` for the platforms it has none of.
 */
export function accountPartsOf<Parts>(options: {
  config: Pick<Config, "ACCOUNT_COOKIES">;
  db: Db;
  parts: { jars: CookieSource; withCookies(cookies: CookieSource): Parts };
  log: Logger;
  now: () => Date;
}): AccountParts<Parts> | undefined {
  const { config, db, parts, log, now } = options;
  if (config.ACCOUNT_COOKIES !== "on") return undefined;
  return ownJars({
    db,
    operator: parts.jars,
    platformOfHost,
    trafficHosts,
    build: (cookies) => parts.withCookies(cookies),
    now,
    onRefused: (accountId, platform, reason) =>
      log.warn(`${platform} refused the own cookies of account ${accountId} (${reason})`, { platform, accountId }),
  });
}
