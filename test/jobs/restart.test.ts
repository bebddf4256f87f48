// The embedded store closed and opened again with a job queued (its instance stopped before any
// worker took it): the job is still there, and completes once the queue runs again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startQueue } from "../../src/queue/queue.ts";
import { type Db, openPglite } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey } from "../helpers/app.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

const settings = { retries: 1, retryDelayS: 1, heartbeatS: 10, pollS: 2 };
let folder: string;
let x: FakeXUpstream;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "jobs-restart-"));
  x = await startFakeXUpstream();
});
afterAll(async () => {
  await x?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function opened(): Promise<Db> {
  const db = await openPglite(folder);
  await migrate(db);
  return db;
}

test(
  "a job queued before the embedded store closed completes after it opens again",
  { timeout: scaled(180_000) },
  async () => {
    const env = { X_SYNDICATION_URL: x.syndicationUrl };
    const urls = [1, 2, 3].map((n) => `https://x.com/nasa/status/${numberedPostId(n)}`);

    const before = await opened();
    const queue = await startQueue(before, settings, console.error);
    // No worker runs on this instance: the job stays queued.
    const app = buildTestApp(before, { env, queue });
    const key = await makeKey(before, "PRO");
    const created = await app.get("/api/v1/jobs", key.plain, { method: "POST", body: JSON.stringify({ urls }) });
    expect(created.status).toBe(202);
    const path = created.headers.get("location")!;
    expect(((await (await app.get(path, key.plain)).json()) as { status: string }).status).toBe("queued");
    await queue.stop();
    await before.close();

    const after = await opened();
    const again = await startQueue(after, settings, console.error);
    try {
      const restarted = buildTestApp(after, { env, queue: again });
      await restarted.jobs!.work();
      const job = await until("the job to complete", async () => {
        const shown = (await (await restarted.get(path, key.plain)).json()) as {
          status: string;
          items: { status: string; post: { id: string } | null }[];
        };
        return shown.status === "completed" ? shown : undefined;
      }, 150_000);
      expect(job.items.map((item) => [item.status, item.post?.id])).toEqual(
        [1, 2, 3].map((n) => ["done", numberedPostId(n)]),
      );
    } finally {
      await again.stop();
      await after.close();
    }
  },
);
