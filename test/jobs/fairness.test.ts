// Jobs of many customers on one instance, on both stores, against the local media site (a host the
// operator added, whose pages yt-dlp reads): a FREE key's queued jobs of slow pages do not hold
// another account's one-link job, which completes while none of theirs has; a page link is read
// once (yt-dlp's one run of it is its item's record), counted in the site's requests; a job is
// `running` while its links are read, its first items done before its last link is read, and
// `counts.linksRead` says how far the reading is.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { makeKey } from "../helpers/app.ts";
import { completed, ended, type JobService, startJobService } from "../helpers/job-service.ts";
import { storeKinds } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { scaled } from "../helpers/slowness.ts";

interface JobAnswer {
  id: string;
  status: string;
  counts: { total: number; done: number; failed: number; linksRead: number };
  items: { position: number; url: string; status: string; post: { text: string | null } | null }[];
}

describe.each(storeKinds)("jobs of many customers on %s", (kind) => {
  let site: MediaSite;
  let service: JobService;

  beforeAll(async () => {
    site = await startMediaSite();
    service = await startJobService({ EXTRA_PAGE_HOSTS: site.host }, { extractionHost: true, store: kind });
  }, scaled(120_000));
  afterAll(async () => {
    await service?.close();
    await site?.close();
  });

  /** Posts a job of `urls` with `key`; its location. */
  async function submit(key: string, urls: string[]): Promise<string> {
    const created = await service.app.post("/api/v1/jobs", key, { urls });
    expect(created.status).toBe(202);
    return created.headers.get("location")!;
  }
  /** The store's word on the jobs: a FREE key's burst (10 calls a minute) is not spent on polling. */
  const statuses = async (ids: string[]) =>
    (await service.store.db.query<{ status: string }>("SELECT status FROM jobs WHERE id = ANY($1::text[])", [ids]))
      .map((row) => row.status);
  const idOf = (location: string) => location.split("/").at(-1)!;

  test(
    "a FREE key's queued jobs do not hold another account's one-link job",
    { timeout: scaled(120_000) },
    async () => {
      const free = await makeKey(service.store.db, "FREE");
      // Three jobs of pages that answer after 3 s: their links alone hold the FREE key's one slot for 15 s each.
      const flood: string[] = [];
      for (let job = 0; job < 3; job += 1) {
        flood.push(idOf(await submit(free.plain, [1, 2, 3, 4, 5].map((n) => site.pages.slow(100 * job + n, 3000)))));
      }
      await until(
        "the flood's first page asked for",
        () => site.requestLog.some((request) => request.search.includes("entry=1&")),
      );
      const gold = await makeKey(service.store.db, "GOLD");
      const location = await submit(gold.plain, [site.pages.slow(900, 0)]);
      const done = await service.jobWhen<JobAnswer>(gold.plain, location, ended, 60_000);
      expect(done.status).toBe("completed");
      expect(done.items[0]!.post?.text).toMatch(/^Progressive test clip/);
      // Every job of the flood is still at work or waiting: the other account's did not wait for them.
      expect((await statuses(flood)).filter((status) => status === "completed" || status === "failed")).toEqual([]);
      for (const id of flood) await service.app.get(`/api/v1/jobs/${id}`, free.plain, { method: "DELETE" });
    },
  );

  test("a page of a host that is no named platform is read once: that read is its item's record", {
    timeout: scaled(120_000),
  }, async () => {
    const key = await makeKey(service.store.db, "GOLD");
    const urls = [1, 2, 3, 4, 5, 6].map((n) => site.pages.slow(600 + n, 500));
    const location = await submit(key.plain, urls);
    const job = await service.jobWhen<JobAnswer>(key.plain, location, completed, 60_000);
    expect(job.items.map((item) => [item.url, item.status, item.post?.text?.startsWith("Progressive test clip")]))
      .toEqual(urls.map((url) => [url, "done", true]));
    // yt-dlp fetches a page once a run: each link's page was asked for once.
    const reads = urls.map((url) => site.requestLog.filter((request) => url.endsWith(request.search)).length);
    expect(reads).toEqual(urls.map(() => 1));
  });

  test("a job is running while its links are read, its first items done before the last is read", {
    timeout: scaled(120_000),
  }, async () => {
    // A FREE key reads its links one at a time (one extraction slot): each takes 2 s here.
    const key = await makeKey(service.store.db, "FREE");
    const urls = [1, 2, 3, 4].map((n) => site.pages.slow(300 + n, 2000));
    const location = await submit(key.plain, urls);
    const jobId = idOf(location);
    const midway = await until("an item done while links are still to read", async () => {
      const [row] = await service.store.db.query<{ status: string; links_read: number; done: number }>(
        `SELECT j.status, j.links_read,
                (SELECT count(*)::integer FROM job_items i WHERE i.job_id = j.id AND i.status = 'done') AS done
           FROM jobs j WHERE j.id = $1`,
        [jobId],
      );
      return row!.done > 0 && row!.links_read < urls.length ? row : undefined;
    }, 60_000);
    expect(midway.status).toBe("running");
    // The API says as much: the links read so far, the items they gave.
    const shown = (await (await service.app.get(location, key.plain)).json()) as JobAnswer;
    expect(shown.status).toBe("running");
    expect(shown.counts.linksRead).toBeGreaterThan(0);
    expect(shown.counts.total).toBe(shown.counts.linksRead);
    await until("the job's end", async () => (await statuses([jobId]))[0] !== "running" || undefined, 60_000);
    const finished = (await (await service.app.get(location, key.plain)).json()) as JobAnswer;
    expect(finished.status).toBe("completed");
    expect(finished.counts).toEqual({ total: 4, done: 4, failed: 0, linksRead: 4 });
  });
});
