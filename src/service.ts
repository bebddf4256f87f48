// Starts the service on whichever runtime's server it is handed: open the store, build the app,
// listen, and (with the embedded store) open the admin socket for the command line.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type App, createApp } from "./app.ts";
import { createCobaltDoor } from "./cobalt/door.ts";
import { createAppDeps } from "./app-deps.ts";
import { ADMIN_FOLDER, ADMIN_SOCKET, createAdminChannel } from "./cli/channel.ts";
import { type Config, ConfigError, parseConfig } from "./config.ts";
import { servedFetch } from "./app/error-sink.ts";
import type { ReadinessCheck } from "./http/readiness.ts";
import { createLogger, errorText, type Logger } from "./log.ts";
import type { Db } from "./store/db.ts";
import { startLinkSecret } from "./store/link-secret.ts";
import { openStore, privateFolder } from "./store/open.ts";
import { markStoreKind } from "./store/store-mark.ts";
import { privateCopies } from "./store/private-copies.ts";
import { nodeFilesIn } from "./runtime/node/files.ts";
import { ageWarning, type Tools } from "./processes/tools.ts";
import type { ConnectionLimits, RunningServer } from "./runtime/serve.ts";
import type { EntryProcess, Runtime, StopSignal } from "./runtime/runtime.ts";
import { connectionLimits } from "./runtime/connection-caps.ts";
import { type Queue, startQueue } from "./queue/queue.ts";
import { type WorkersOnDemand, workersOnDemand } from "./queue/on-demand.ts";
import { accountPartsOf, createFeatures, type Features } from "./app/features.ts";
import type { AppParts, CookiedParts } from "./app-deps.ts";
import type { AccountParts } from "./account-cookies/own-jar.ts";
import { startCookieKey } from "./account-cookies/seal.ts";

export interface Service {
  server: RunningServer;
  close(): Promise<void>;
}

export async function startService(config: Config, runtime: Runtime, log: Logger): Promise<Service> {
  const serve = runtime.serve;
  // Built before the store opens: it starts the tools' probe, which then runs beside the opening.
  // The tools' copies of cookies go to DATA_DIR, where a start removes what a killed service left.
  const copies = copiesOfCookies(config);
  const deps = createAppDeps({
    config,
    runtime: copies === null ? runtime : { ...runtime, files: nodeFilesIn(copies.path) },
    log,
  });
  deps.tools.changed.on((tools, before) => tellAboutTools(tools, before, log));
  // A cookie file that cannot be used is told now (once), not at the first page-mode request.
  void deps.cookies?.read();
  const db = await startStore(config, runtime, log);
  const accountParts = accountPartsOf({ config, db, parts: deps, log, now: () => new Date() });
  // The store may open and still be unable to write (a full DATA_DIR): say so now, not at the first 503.
  await db.ready?.().catch((error: unknown) => log.error("the store is not ready", { reason: errorText(error) }));
  const { queue, jobs, watches, events, work, workers } = await startJobs(config, db, { ...deps, accountParts }, log);
  // Set when a stop begins: /readyz then fails, so a balancer that probes it stops sending here.
  let draining = false;
  const app = createApp({
    config,
    db,
    log,
    jobs,
    watches,
    deliveries: events.deliveries,
    ...deps,
    accountParts,
    readinessChecks: [...deps.readinessChecks, drainCheck(() => draining)],
  });
  const limits = connectionLimits(config);
  const server = await serve(app, { port: config.PORT, hostname: config.HOST }, log, limits);
  const door = await serveCobaltDoor(config, db, app, runtime, log, limits);
  // Once the service answers: the host's warm-up (about 1.5 s of CPU) would otherwise compete with
  // the store's start, and until the host is ready the tools' programs run every extraction.
  deps.extractor.start(log);
  await workers.begin(work);
  const admin = config.DATABASE_URL ? undefined : await serveAdmin(config, db, deps, runtime, log);
  const stopChecks = config.PLATFORM_CHECK_INTERVAL_S > 0
    ? deps.platformChecks.every(config.PLATFORM_CHECK_INTERVAL_S)
    : () => {};
  log.info(`listening on ${server.address}`, {
    address: server.address,
    store: db.kind,
    maxConnections: limits.maxConnections,
    maxConnectionsPerClient: limits.maxPerClient,
  });
  return {
    server,
    async close() {
      draining = true;
      stopChecks();
      const servers = [server, door, admin].filter((each) => each !== undefined);
      // A close that fails is logged and counts as not finished: what it left is cut below.
      const drained = Promise.all(
        servers.map((each) =>
          each.close().catch((error: unknown) => {
            log.error("a server did not close cleanly", { address: each.address, error: errorText(error) });
            throw error;
          })
        ),
      );
      if (!(await settlesWithin(drained, config.SHUTDOWN_GRACE_MS))) {
        log.warn("grace period over, cutting the responses in flight", { graceMs: config.SHUTDOWN_GRACE_MS });
        for (const each of servers) each.cut();
        // Cut responses end at once; the bound only keeps a stuck one from holding the exit.
        await settlesWithin(drained, CUT_WAIT_MS);
      }
      deps.claims?.close();
      // Items in flight finish or, past the queue's wait, run again on an instance that is up.
      await queue.stop().catch((error: unknown) =>
        log.error("the job queue did not stop cleanly", { error: errorText(error) })
      );
      await Promise.all([deps.gate.close(), deps.extractor.close()]);
      copies?.remove();
      await db.close();
    },
  };
}

const CUT_WAIT_MS = 2_000;

/** The cobalt door on COBALT_PORT (src/cobalt/), when the operator set one: another app over this one. */
async function serveCobaltDoor(
  config: Config,
  db: Db,
  app: App,
  runtime: Runtime,
  log: Logger,
  limits: ConnectionLimits,
): Promise<RunningServer | undefined> {
  if (config.COBALT_PORT === undefined) return undefined;
  const door = createCobaltDoor({ api: app, db, config, log, startedAt: new Date() });
  const server = await runtime.serve(door, { port: config.COBALT_PORT, hostname: config.HOST }, log, limits);
  log.info(`cobalt door open at ${server.address}`, { address: server.address });
  return server;
}

/** The admin socket of the embedded store, in its data folder, for `admin` beside a running service. */
async function serveAdmin(
  config: Config,
  db: Db,
  deps: AppParts,
  runtime: Runtime,
  log: Logger,
): Promise<RunningServer> {
  // We hold the data folder's lock, so a socket file left here is a dead process's.
  privateFolder(join(config.DATA_DIR, ADMIN_FOLDER));
  const socket = join(config.DATA_DIR, ADMIN_SOCKET);
  rmSync(socket, { force: true });
  return runtime.serve(servedFetch(createAdminChannel(db, { checks: deps.platformChecks, jars: deps.jars }), log), {
    path: socket,
  }, log);
}

/** The store's own link secret, made or (a secret every store of its build shared) replaced at this start. */
/** The store opened, its kind recorded, and its own secrets made at its first start (the link secret, the cookie key). */
async function startStore(config: Config, runtime: Runtime, log: Logger): Promise<Db> {
  const db = await openStore(config, { openPgliteIn: runtime.openPgliteIn });
  recordStoreKind(config, log);
  await startLinkSecretLogged(db, log);
  await startCookieKey(db);
  return db;
}

async function startLinkSecretLogged(db: Db, log: Logger): Promise<void> {
  const start = await startLinkSecret(db, new Date());
  if (start === "replaced") {
    log.warn(
      "the link secret was the one this store's build was made with, which every store copied from that build shared: replaced by a secret of this store's own; links signed before are refused (403 link_invalid)",
    );
  } else if (start === "made") {
    log.info("made this store's link secret");
  }
}

/** Fails once the service stops: it takes no new connections, and answers those it holds while it drains. */
function drainCheck(draining: () => boolean): ReadinessCheck {
  return {
    name: "accepting",
    check: async () => {
      if (draining()) throw new Error("stopping: no new connections, the requests in flight are finishing");
    },
  };
}

/**
 * The queue on the store just opened (its schema made after the service's migrations), this
 * instance's side of it, `work`, which starts its workers, and `workers`, which starts them once
 * the queue holds work (queue/on-demand.ts).
 */
/** The tools' private copies of cookies go to DATA_DIR (nothing of them in TMPDIR); null where there are none to copy. */
function copiesOfCookies(config: Config) {
  const any = config.COOKIES_FILE !== undefined || config.COOKIES_DIR !== undefined ||
    config.platformCookieFiles.size > 0 || config.ACCOUNT_COOKIES === "on";
  return any ? privateCopies(config.DATA_DIR) : null;
}

async function startJobs(
  config: Config,
  db: Db,
  { accountParts, ...parts }: AppParts & { accountParts: AccountParts<CookiedParts> | undefined },
  log: Logger,
): Promise<Features & { queue: Queue; workers: WorkersOnDemand }> {
  const onError = (error: Error) => log.error("the job queue failed", { error: errorText(error) });
  // A job put on a queue wakes its workers at once (LISTEN/NOTIFY), and a waiting job or a retry when
  // due; the poll only bounds how late one is taken whose instance stopped, and costs an idle
  // instance 44 workers' asks every pollS (1 s was 10% of a core).
  const settings = { retries: 3, retryDelayS: 2, heartbeatS: 10, pollS: 10 };
  const workers = workersOnDemand(await startQueue(db, settings, onError), { everyS: settings.pollS, onError });
  const features = createFeatures({
    config,
    db,
    queue: workers.queue,
    parts,
    log,
    now: () => new Date(),
    accountParts,
  });
  return { queue: workers.queue, workers, ...features };
}

/** What the tools' probe found at start-up, and each time that changes (an install or an update). */
function tellAboutTools(tools: Tools, before: Tools | null, log: Logger): void {
  for (const [tool, { path, failure, version }] of Object.entries(tools)) {
    const was = before?.[tool as keyof Tools].version;
    if (failure !== null) {
      log.warn("a media tool cannot be run: page mode answers 503 tool_missing", { tool, path, failure });
    } else if (was !== undefined && was !== version) {
      log.info("a media tool changed on disk", { tool, path, version, was });
    }
  }
  for (const name of ["yt-dlp", "gallery-dl"] as const) {
    const stale = ageWarning(name, tools, new Date());
    if (stale) log.warn(stale);
  }
}

/** Whether `promise` fulfils within `ms`; a rejection is no success. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true as const,
    () => false as const,
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}

/**
 * What every runtime entry does: read the environment, start, and on SIGTERM or SIGINT stop
 * accepting, let the responses in flight finish within SHUTDOWN_GRACE_MS, cut the rest, close the
 * store and exit 0. A signal that comes during the start stops the service once it has started.
 */
export async function main(runtime: Runtime, { env, onSignal, onUncaught, exit }: EntryProcess): Promise<void> {
  let config: Config;
  try {
    config = parseConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    return exit(1);
  }
  const log = createLogger(config.LOG_LEVEL);
  onUncaught(exitOnUncaught(log, exit));
  // Listened for before the start: a signal that came during it would otherwise end the process
  // at once (the default action), leaving what a clean stop removes (the cookie copies, the host).
  let asked: StopSignal | null = null;
  let service: Service | undefined;
  let stopping = false;
  const stopOnceStarted = () => {
    if (stopping || asked === null || service === undefined) return;
    stopping = true;
    stopService(service, asked, config.SHUTDOWN_GRACE_MS, log, exit);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    onSignal(signal, () => {
      asked ??= signal;
      stopOnceStarted();
    });
  }
  try {
    service = await startService(config, runtime, log);
  } catch (error) {
    log.error("could not start", { error: errorText(error) });
    return exit(1);
  }
  stopOnceStarted();
}

/**
 * Logs what nothing caught as one of the service's lines, with its stack, and exits 1 as the
 * runtime would have: the state it left is unknown. The runtime's own report is a bare stack on
 * stderr, which says neither when nor what the service was doing (a stop, for one).
 */
export function exitOnUncaught(log: Logger, exit: (code: number) => never): (error: unknown) => void {
  return (error) => {
    log.error("an error nothing caught: exiting", { error: errorText(error, { stack: true }) });
    exit(1);
  };
}

/** Lets the responses in flight finish (within `graceMs`), closes the store, and exits. */
function stopService(
  service: Service,
  signal: StopSignal,
  graceMs: number,
  log: Logger,
  exit: (code: number) => never,
): void {
  log.info("stopping", { signal, graceMs });
  service.close().then(
    () => {
      log.info("stopped");
      exit(0);
    },
    (error: unknown) => {
      log.error("could not stop cleanly", { error: errorText(error) });
      exit(1);
    },
  );
}

/** Marks DATA_DIR with the store's kind for the operator's command; a folder it cannot write only costs that check. */
function recordStoreKind(config: Config, log: Logger): void {
  try {
    markStoreKind(config.DATA_DIR, config.DATABASE_URL ? "postgres" : "embedded");
  } catch (error) {
    log.warn("DATA_DIR cannot be marked with the store's kind; the admin command cannot check it", {
      reason: errorText(error),
    });
  }
}
