// The app with its jobs running, as the tests of jobs use it: an in-memory store, the queue on it,
// the app over both with its job workers started, and a DATA_DIR and a TMPDIR of its own, which
// the service must leave empty (its store is in memory; its tools get TMPDIR as its children).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { buildTestApp, type TestApp } from "./app.ts";
import { openTestStore, type StoreKind, type TestStore } from "./stores.ts";
import { until } from "./until.ts";

export interface JobService {
  store: TestStore;
  queue: Queue;
  app: TestApp;
  /** DATA_DIR and the tools' TMPDIR: nothing should appear in either. */
  untouched: { dataDir: string; tmp: string };
  /** A folder of the test's own, for what it keeps (an archive it fetched). */
  scratch: string;
  /**
   * Writes the operator's cookie file (COOKIES_FILE, read anew for every run) with these Netscape
   * lines: the sessions the test gives from now on. Only with `cookies: true`.
   */
  giveSessions(...lines: string[]): Promise<void>;
  /** Polls the job at `location` with `key` until `ready` says yes of it, and returns it as it was then. */
  jobWhen<Job extends { status: string }>(
    key: string,
    location: string,
    ready: (job: Job) => boolean,
    timeoutMs: number,
  ): Promise<Job>;
  close(): Promise<void>;
}

/** A job that has run to its end, as the API shows it. */
export const ended = (job: { status: string }) => ["completed", "failed", "cancelled"].includes(job.status);
export const completed = (job: { status: string }) => job.status === "completed";

/**
 * Starts the app over a new store with the settings `env` (the fakes' origins). Start the fakes
 * first: from here on, TMPDIR (which every mkdtemp reads) is the service's, until `close`.
 * `cookies` gives the service a COOKIES_FILE, with no session until `giveSessions` writes some.
 * `extractionHost` keeps yt-dlp and gallery-dl warm, as the service does: where a test's jobs run
 * them, their extractions then cost far less than a new program each (measured: such a file took
 * about 40% less CPU). `store` is the store's kind: the embedded one unless told.
 */
export async function startJobService(
  env: Record<string, string>,
  options: { cookies?: boolean; extractionHost?: boolean; store?: StoreKind } = {},
): Promise<JobService> {
  const folders = mkdtempSync(path.join(tmpdir(), "job-service-"));
  const folder = (name: string) => {
    const made = path.join(folders, name);
    mkdirSync(made);
    return made;
  };
  const [dataDir, tmp, scratch] = [folder("data"), folder("tmp"), folder("scratch")];
  const cookiesFile = options.cookies ? path.join(folder("cookies"), "cookies.txt") : null;
  const giveSessions = async (...lines: string[]) => {
    if (cookiesFile === null) throw new Error("the service has no COOKIES_FILE: start it with cookies: true");
    await writeFile(cookiesFile, ["# Netscape HTTP Cookie File", ...lines, ""].join("\n"));
  };
  if (cookiesFile !== null) await giveSessions();
  const store = await openTestStore(options.store ?? "pglite");
  // A try that failed for a cause a retry can help (a 5xx of a fake) runs again a second later.
  const settings = { retries: 2, retryDelayS: 1, heartbeatS: 10, pollS: 2, schema: store.queueSchema };
  const queue = await startQueue(store.db, settings, console.error);
  const tmpdirBefore = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  const cookiesEnv: Record<string, string> = cookiesFile === null ? {} : { COOKIES_FILE: cookiesFile };
  const app = buildTestApp(store.db, {
    env: { DATA_DIR: dataDir, ...cookiesEnv, ...env },
    queue,
    extractionHost: options.extractionHost ?? false,
  });
  await app.jobs!.work();
  return {
    store,
    queue,
    app,
    untouched: { dataDir, tmp },
    scratch,
    giveSessions,
    jobWhen: (key, location, ready, timeoutMs) =>
      // A job's answer holds a page of its items' records: asked four times a second, not twenty.
      until(
        "the job",
        async () => {
          const job = await (await app.get(location, key)).json();
          return ready(job) ? job : undefined;
        },
        timeoutMs,
        250,
      ),
    async close() {
      if (tmpdirBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdirBefore;
      await queue.stop();
      await Promise.all([store.close(), app.extractor.close()]);
      rmSync(folders, { recursive: true, force: true });
    },
  };
}
