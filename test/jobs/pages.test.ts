// The owner's jobs page without a browser: the account's jobs with their progress, their items'
// problems and what they say escaped, reloading itself only while one runs; another account's job neither shown nor
// cancelled; the cancel button; and the paste page's job form, which goes through POST
// /api/v1/jobs (an app without a queue answers it 503, said on the page) and is refused from
// another site.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { createJob, jobOf } from "../../src/jobs/store.ts";
import { createApiKey } from "../../src/store/api-keys.ts";
import { buildTestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { Visitor } from "../helpers/visitor.ts";
import { scaled } from "../helpers/slowness.ts";

describe("the jobs page", () => {
  let store: TestStore;
  let app: App;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    app = buildTestApp(store.db).app;
  }, scaled(60_000));
  afterAll(async () => {
    await store?.close();
  });

  async function owner(email: string): Promise<{ visitor: Visitor; accountId: number; keyId: string }> {
    const visitor = new Visitor(app);
    expect((await visitor.signUp(email)).status).toBe(303);
    const [{ id }] = await store.db.query<{ id: number }>("SELECT id FROM accounts WHERE email = $1", [email]) as [
      { id: number },
    ];
    const made = await createApiKey(store.db, {
      accountId: Number(id),
      name: "jobs",
      tier: "FREE",
      expiresInDays: null,
      now: new Date(),
    });
    return { visitor, accountId: Number(id), keyId: made.key.id };
  }

  async function jobFor(who: { accountId: number; keyId: string }, urls: string[]) {
    const request = { urls: urls.map((url) => new URL(url)), files: true, format: null, output: "mp4" as const };
    return createJob(store.db, {
      id: crypto.randomUUID(),
      accountId: who.accountId,
      apiKeyId: who.keyId,
      request,
      now: new Date(),
    });
  }

  it("shows the account's jobs escaped, follows a running one, and cancels only the owner's", async () => {
    const mine = await owner("jobs-page@example.com");
    const job = await jobFor(mine, ["https://example.com/a", "https://example.com/b"]);
    await store.db.query("UPDATE jobs SET complete = false, incomplete = $2 WHERE id = $1", [
      job.id,
      "<script>alert(1)</script>",
    ]);
    await store.db.query(
      `INSERT INTO job_items (job_id, position, url, status, problem) VALUES
         ($1, 1, 'https://example.com/a', 'failed', $2::jsonb), ($1, 2, 'https://example.com/b', 'queued', NULL)`,
      [job.id, JSON.stringify({ code: "post_unavailable", detail: "The post is <b>gone</b>." })],
    );
    const page = await (await mine.visitor.send("/profile/jobs")).text();
    expect(page).toContain(`id="job-${job.id}"`);
    expect(page).toContain("0 done, 1 failed, of 2 items so far; 0 of 2 links read");
    expect(page).toContain("Item 1, <code>https://example.com/a</code>: The post is &lt;b&gt;gone&lt;/b&gt;.");
    expect(page).toContain("(post_unavailable)");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).not.toContain("<script>alert");
    expect(page).toContain('<meta http-equiv="refresh" content="3">');
    expect(page).toContain('action="/profile/jobs/cancel"');
    expect(page).not.toContain("Download the archive");

    const stranger = await owner("jobs-stranger@example.com");
    expect(await (await stranger.visitor.send("/profile/jobs")).text()).not.toContain(job.id);
    expect((await stranger.visitor.send(`/profile/jobs?id=${job.id}`)).status).toBe(404);
    const csrf = await stranger.visitor.csrfOf("/profile/jobs");
    expect((await stranger.visitor.post("/profile/jobs/cancel", { csrf, id: job.id })).status).toBe(404);
    expect((await jobOf(store.db, job.id))!.status).toBe("queued");

    const forged = await mine.visitor.post("/profile/jobs/cancel", {
      csrf: await mine.visitor.csrfOf("/profile/jobs"),
      id: job.id,
    }, { "sec-fetch-site": "cross-site" });
    expect(forged.status).toBe(403);
    const cancelled = await mine.visitor.post("/profile/jobs/cancel", {
      csrf: await mine.visitor.csrfOf("/profile/jobs"),
      id: job.id,
    });
    expect([cancelled.status, cancelled.headers.get("location")]).toEqual([303, "/profile/jobs?notice=cancelled"]);
    expect((await jobOf(store.db, job.id))!.status).toBe("cancelled");
    const after = await (await mine.visitor.send(`/profile/jobs?id=${job.id}`)).text();
    expect(after).toContain("cancelled");
    expect(after).not.toContain("http-equiv");
  });

  it("makes a job through the API: its answer is the page's, and a bad form is said on the paste page", async () => {
    const { visitor, keyId } = await owner("jobs-form@example.com");
    const csrf = await visitor.csrfOf("/paste");
    const links = "https://example.com/one\nhttps://example.com/two";
    const send = (fields: Record<string, string>) =>
      visitor.post("/profile/jobs", { csrf, key: keyId, files: "true", ...fields });

    const empty = await send({ links: "\n \n" });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Write at least one link, one per line.");
    const backwards = await send({ links, start: "0:20", end: "10" });
    expect(backwards.status).toBe(400);
    const text = await backwards.text();
    expect(text).toContain("the clip must end after it starts");
    expect(text).toContain(">https://example.com/one\nhttps://example.com/two</textarea>");
    // This app runs no queue: POST /api/v1/jobs says so, and the page with it.
    const busy = await send({ links });
    expect(busy.status).toBe(503);
    expect(await busy.text()).toContain("This instance runs no job queue");
    expect((await store.db.query("SELECT 1 FROM jobs WHERE api_key_id = $1", [keyId])).length).toBe(0);
  });
});
