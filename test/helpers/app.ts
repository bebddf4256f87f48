// Builds the app in-process over a test store, with a clock the test moves and a log it reads.
import { type App, createApp } from "../../src/app.ts";
import { hashPassword } from "../../src/auth/password.ts";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { type Capabilities, createAppDeps } from "../../src/app-deps.ts";
import type { ExtractionHost } from "../../src/processes/extraction-host.ts";
import { nodeCapabilities } from "../../src/runtime/node/capabilities.ts";
import { nodeFilesIn } from "../../src/runtime/node/files.ts";
import { nodeUpstream } from "../../src/runtime/node/relay-upstream.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { createApiKey, type Tier } from "../../src/store/api-keys.ts";
import type { Db } from "../../src/store/db.ts";
import type { Queue } from "../../src/queue/queue.ts";
import type { Jobs } from "../../src/jobs/runner.ts";
import type { Watches } from "../../src/watches/runner.ts";
import { accountPartsOf, createFeatures } from "../../src/app/features.ts";
import type { Slots } from "../../src/limits/slots.ts";
import type { Events } from "../../src/webhooks/events.ts";
import { scaled } from "./slowness.ts";

export class TestClock {
  constructor(public current = new Date("2026-01-01T00:00:00.000Z")) {}
  now = () => new Date(this.current);
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestApp {
  app: App;
  clock: TestClock;
  logLines: string[];
  get(path: string, key?: string, init?: RequestInit): Promise<Response>;
  /** A POST of `body` as JSON, with the key. */
  post(path: string, key: string, body: unknown): Promise<Response>;
  /** The instance's extraction slots: a test holds a key's to see what waits for them. */
  extractions: Slots;
  /** The app's extractor: the extraction host, started only with `extractionHost: true`. */
  extractor: ExtractionHost;
  /**
   * The media tools' probe, started with the app. A test that asks /readyz about the tools waits
   * for it first: a busy machine can take longer than the readiness check's own bound to run them.
   */
  toolsProbed: Promise<unknown>;
  /** The jobs' side of the app, with `queue`: its workers start with `jobs.work()`. */
  jobs: Jobs | null;
  /** The webhooks' side, with `queue`: its delivery workers start with `events.work()`. */
  events: Events | null;
  /** The watches' side, with `queue`: its worker starts with `watches.work()`, after `jobs.work()`. */
  watches: Watches | null;
}

/**
 * Upstreams point at a closed port unless `env` names test servers (same variables as the service).
 * Extractions run yt-dlp's program each time unless `extractionHost` starts the extraction host
 * (the caller closes it: `extractor.close()`). `privateCopies` is the folder of the private copies
 * (the cookie file's) instead of TMPDIR, for a test that counts them: other runs on the machine make
 * theirs in TMPDIR too. `runtime` stands in for the runtime's resolver or media upstream client, for a test of
 * what the egress policy makes of a public host's name without leaving the machine.
 */
export function buildTestApp(
  db: Db,
  options: {
    clock?: TestClock;
    env?: Record<string, string>;
    extractionHost?: boolean;
    queue?: Queue;
    privateCopies?: string;
    runtime?: Partial<Pick<Capabilities, "resolveHost" | "upstream">>;
  } = {},
): TestApp {
  const clock = options.clock ?? new TestClock();
  const logLines: string[] = [];
  const config = parseConfig({
    // A store's answer on a busy machine may take longer than the half second a quiet one allows.
    HEALTH_TIMEOUT_MS: String(scaled(2_000)),
    X_SYNDICATION_URL: "http://127.0.0.1:9",
    X_GRAPHQL_URL: "off",
    // The suite's other files keep the machine busy: jobs' tools niced would wait behind them all.
    JOB_NICENESS: "0",
    ...options.env,
  });
  const log = createLogger("debug", (line) => logLines.push(line));
  const files = options.privateCopies ? nodeFilesIn(options.privateCopies) : nodeCapabilities.files;
  const runtime = { upstream: nodeUpstream, ...nodeCapabilities, files, ...options.runtime };
  const deps = createAppDeps({ config, runtime, now: clock.now, log });
  if (options.extractionHost) deps.extractor.start(log);
  const accountParts = accountPartsOf({ config, db, parts: deps, log, now: clock.now });
  const features = options.queue
    ? createFeatures({
      config,
      db,
      queue: options.queue,
      parts: deps,
      log,
      now: clock.now,
      deliveriesNow: () => new Date(),
      accountParts,
    })
    : null;
  const [events, jobs, watches] = [features?.events ?? null, features?.jobs ?? null, features?.watches ?? null];
  const deliveries = events?.deliveries ?? null;
  const app = createApp({ config, db, log, now: clock.now, jobs, watches, deliveries, ...deps, accountParts });
  const get: TestApp["get"] = (path, key, init = {}) => {
    const headers = new Headers(init.headers);
    if (key) headers.set("authorization", `Bearer ${key}`);
    return app.fetch(new Request(`http://test.local${path}`, { ...init, headers }));
  };
  return {
    app,
    clock,
    logLines,
    extractor: deps.extractor,
    extractions: deps.extractions,
    toolsProbed: deps.tools.current(),
    jobs,
    events,
    watches,
    get,
    post: (path, key, body) =>
      get(path, key, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  };
}

let accounts = 0;

/** A fresh account with one key of the given tier; returns the plain key and its id. */
export async function makeKey(
  db: Db,
  tier: Tier,
  options: { now?: Date; expiresInDays?: number | null } = {},
): Promise<{ plain: string; id: string; accountId: number }> {
  accounts += 1;
  // A cheap iteration count: these tests are about keys, not passwords.
  const account = (await createAccount(
    db,
    `owner${accounts}-${crypto.randomUUID()}@example.com`,
    await hashPassword("x".repeat(12), 1000),
  ))!;
  const { key, plain } = await createApiKey(db, {
    accountId: account.id,
    name: "test",
    tier,
    expiresInDays: options.expiresInDays ?? null,
    now: options.now ?? new Date("2026-01-01T00:00:00.000Z"),
  });
  return { plain, id: key.id, accountId: account.id };
}
