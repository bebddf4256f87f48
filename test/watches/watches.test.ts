// Watches as an owner meets them, through the app and the real queue on one started service: a
// watch over a local feed (a channel that gains posts) records what is there on its first run and
// then reports the two posts the feed gains, once, as a signed watch.found the standardwebhooks
// package verifies; pausing stops its runs and resuming starts them again; another account's watch
// is 404; a run that finds the watch's key made passive pauses the watch instead of running; each
// run is one call of the key, skipped past its day; a FREE key holds 5 watches.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { watchOf } from "../../src/watches/store.ts";
import { updateApiKey } from "../../src/store/api-keys.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp, makeKey, type TestApp, TestClock } from "../helpers/app.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { Visitor } from "../helpers/visitor.ts";
import { scaled } from "../helpers/slowness.ts";

/** The wall clock: a watch's runs are queued for real times. */
class WallClock extends TestClock {
  override now = () => new Date();
}

interface WatchAnswer {
  id: string;
  paused: boolean;
  pausedReason: string | null;
  nextRunAt: string | null;
  runs: number;
  baselined: boolean;
  lastProblem: string | null;
}

interface Found {
  type: string;
  data: {
    watch: { id: string };
    job: { id: string; counts: { total: number; done: number } };
    posts: { url: string; status: string; post: { url: string; downloadUrl: string; text: string | null } | null }[];
  };
}

describe("watches", () => {
  let store: TestStore;
  let site: MediaSite;
  let receiver: Receiver;
  let queue: Queue;
  let app: TestApp;

  beforeAll(async () => {
    [store, site, receiver] = await Promise.all([openTestStore("pglite"), startMediaSite(), startReceiver()]);
    queue = await startQueue(
      store.db,
      { retries: 1, retryDelayS: 1, heartbeatS: 10, pollS: 2, schema: store.queueSchema },
      console.error,
    );
    app = buildTestApp(store.db, {
      env: {
        EXTRA_PAGE_HOSTS: site.host,
        WEBHOOK_EXTRA_HOSTS: receiver.endpoint,
        WEBHOOK_RETRY_SCHEDULE: "0,1",
        WATCH_MIN_EVERY_S: "1",
      },
      queue,
      clock: new WallClock(),
      // Warm extractions: each run lists the feed, and a found post's record is one more.
      extractionHost: true,
    });
    await app.events!.work();
    await app.jobs!.work();
    await app.watches!.work();
  }, scaled(120_000));
  afterAll(async () => {
    await queue?.stop();
    await app?.extractor.close();
    await Promise.all([store?.close(), site?.close(), receiver?.close()]);
  });

  const show = async (key: string, id: string) =>
    (await (await app.get(`/api/v1/watches/${id}`, key)).json()) as WatchAnswer;

  async function watch(key: string, body: object): Promise<WatchAnswer> {
    const answer = await app.post("/api/v1/watches", key, { url: site.pages.growingFeed, every: "1s", ...body });
    expect(answer.status).toBe(201);
    return (await answer.json()) as WatchAnswer;
  }

  /** Waits until the watch has run `more` times past `runs`, answering it then. */
  const ranAgain = (key: string, id: string, runs: number, more = 1) =>
    until(`watch ${id} to run ${more} more times`, async () => {
      const now = await show(key, id);
      return now.runs >= runs + more ? now : undefined;
    }, 60_000);

  test("a feed that gains two posts is told once, as one signed watch.found with exactly those two", {
    timeout: scaled(120_000),
  }, async () => {
    site.growingFeed.entries = 2;
    const key = await makeKey(store.db, "PRO");
    const hook = (await (await app.post("/api/v1/webhooks", key.plain, {
      url: receiver.url,
      events: ["watch.found"],
    })).json()) as { id: string; secret: string };
    const made = await watch(key.plain, { webhook: hook.id });
    const baseline = await until("the first run's baseline", async () => {
      const now = await show(key.plain, made.id);
      return now.baselined ? now : undefined;
    });
    expect(baseline.lastProblem).toBeNull();
    site.growingFeed.entries = 4;
    const ofWatch = () =>
      receiver.events("watch.found").filter((each) => (JSON.parse(each.body) as Found).data.watch.id === made.id);
    const [found] = await until("the watch's watch.found", () => (ofWatch().length > 0 ? ofWatch() : undefined));
    const event = new Webhook(hook.secret).verify(found!.body, found!.headers) as Found;
    const fresh = [3, 4].map((n) => `${site.origin}/progressive.html?entry=${n}`);
    // Each post's text is the feed's title for it.
    expect(event.data.posts.map((post) => [post.url, post.status, post.post?.url, post.post?.text])).toEqual(
      fresh.map((url, at) => [url, "done", url, `Clip ${at + 3}`]),
    );
    expect(event.data.job.counts).toMatchObject({ total: 2, done: 2 });
    // Each post's record carries its signed link, as `post` gives it.
    for (const post of event.data.posts) {
      const link = new URL(post.post!.downloadUrl);
      expect([link.pathname, link.searchParams.get("url"), Boolean(link.searchParams.get("sig"))]).toEqual([
        "/api/v1/download",
        post.url,
        true,
      ]);
    }
    // Two more runs over the same four entries find nothing new.
    await ranAgain(key.plain, made.id, (await show(key.plain, made.id)).runs, 2);
    expect(ofWatch()).toHaveLength(1);
    const stranger = await makeKey(store.db, "PRO");
    expect(
      (await app.post("/api/v1/watches", stranger.plain, {
        url: site.pages.growingFeed,
        every: "2s",
        webhook: hook.id,
      })).status,
    ).toBe(400);
  });

  test(
    "pausing stops a watch's runs while another's go on; resuming runs it again",
    { timeout: scaled(120_000) },
    async () => {
      const key = await makeKey(store.db, "PRO");
      const [paused, going] = [await watch(key.plain, {}), await watch(key.plain, {})];
      await ranAgain(key.plain, paused.id, 0);
      const pause = await app.get(`/api/v1/watches/${paused.id}/pause`, key.plain, { method: "POST" });
      expect(pause.status).toBe(200);
      const atPause = (await pause.json()) as WatchAnswer;
      expect(atPause).toMatchObject({ paused: true, pausedReason: "paused by its owner", nextRunAt: null });
      // The other watch's runs are the clock: it runs twice while the paused one runs none.
      await ranAgain(key.plain, going.id, (await show(key.plain, going.id)).runs, 2);
      expect((await show(key.plain, paused.id)).runs).toBe(atPause.runs);
      const resumed = await app.get(`/api/v1/watches/${paused.id}/resume`, key.plain, { method: "POST" });
      expect(((await resumed.json()) as WatchAnswer).paused).toBe(false);
      await ranAgain(key.plain, paused.id, atPause.runs);
      for (const id of [paused.id, going.id]) {
        expect((await app.get(`/api/v1/watches/${id}`, key.plain, { method: "DELETE" })).status).toBe(204);
      }
    },
  );

  test("each run is one call of the watch's key; a run past the key's day is skipped and says so", {
    timeout: scaled(120_000),
  }, async () => {
    site.growingFeed.entries = 2;
    const key = await makeKey(store.db, "PRO");
    const made = await watch(key.plain, {});
    const counted = async () =>
      (await store.db.query<{ n: number }>(
        "SELECT coalesce(sum(count), 0)::int AS n FROM usage_minutes WHERE api_key_id = $1",
        [key.id],
      ))[0]!.n;
    // The store is watched, not the API, whose calls are counted too.
    // The POST, and one call for each run (a run is claimed, then counted as it looks: between runs they agree).
    await until("two runs, each counted", async () => {
      const runs = (await watchOf(store.db, made.id))!.runs;
      return runs >= 2 && (await counted()) === 1 + runs ? true : undefined;
    });
    await store.db.query(
      `INSERT INTO usage_minutes AS u (api_key_id, minute, count) VALUES ($1, date_trunc('minute', now()), 10000)
       ON CONFLICT (api_key_id, minute) DO UPDATE SET count = u.count + 10000`,
      [key.id],
    );
    const skipped = await until("a run skipped", async () => {
      const now = (await watchOf(store.db, made.id))!;
      return now.lastProblem?.startsWith("Skipped") ? now : undefined;
    });
    expect(skipped.lastProblem).toBe("Skipped: the key's daily limit was used up; the next run looks again.");
    await updateApiKey(store.db, key.id, { passive: true });
  });

  test("a run whose key has every extraction slot held gives its worker back: another key's watches run meanwhile", {
    timeout: scaled(120_000),
  }, async () => {
    site.growingFeed.entries = 2;
    const [busy, other] = [await makeKey(store.db, "PRO"), await makeKey(store.db, "PRO")];
    // The busy key's calls hold all its slots (a PRO key's 3), until the test lets them go.
    const holder = { id: busy.id, accountId: busy.accountId, tier: "PRO" };
    const held: (() => void)[] = [];
    for (;;) {
      try {
        held.push(app.extractions.acquire(holder));
      } catch {
        break;
      }
    }
    expect(held).toHaveLength(3);
    // More of its runs than the runs' two workers: each waiting for a slot would hold them all.
    const waiting = [await watch(busy.plain, {}), await watch(busy.plain, {}), await watch(busy.plain, {})];
    await until("the busy key's runs to be claimed", async () => {
      const runs = await Promise.all(waiting.map(async (made) => (await watchOf(store.db, made.id))!.runs));
      return runs.every((n) => n >= 1) ? true : undefined;
    });
    const going = await watch(other.plain, {});
    // The store is watched, not the API, whose calls are counted too.
    const looked = (id: string) => watchOf(store.db, id).then((now) => now!.baselinedAt !== null);
    await until("the other key's watch to look", async () => ((await looked(going.id)) ? true : undefined));
    expect((await watchOf(store.db, going.id))!.lastProblem).toBeNull();
    expect(await Promise.all(waiting.map((made) => looked(made.id)))).toEqual([false, false, false]);
    for (const release of held) release();
    await until("the busy key's watches to look once its slots are free", async () => {
      const now = await Promise.all(waiting.map((made) => looked(made.id)));
      return now.every(Boolean) ? true : undefined;
    });
    for (const made of [...waiting, going]) {
      const key = made === going ? other.plain : busy.plain;
      expect((await app.get(`/api/v1/watches/${made.id}`, key, { method: "DELETE" })).status).toBe(204);
    }
  });

  test("a FREE key holds 5 watches; the sixth is 409 watches_full", async () => {
    const key = await makeKey(store.db, "FREE");
    for (let n = 0; n < 5; n += 1) await watch(key.plain, { every: "1d" });
    const sixth = await app.post("/api/v1/watches", key.plain, { url: site.pages.growingFeed, every: "1d" });
    expect(sixth.status).toBe(409);
    expect((await sixth.json()) as { code: string; detail: string }).toMatchObject({
      code: "watches_full",
      detail: expect.stringContaining("A FREE key holds at most 5 watches"),
    });
  });

  test("another account's watch is 404, as one that never was", async () => {
    const [owner, stranger] = [await makeKey(store.db, "PRO"), await makeKey(store.db, "PRO")];
    const made = await watch(owner.plain, { every: "1d" });
    for (const [path, method] of [["", "GET"], ["", "DELETE"], ["/pause", "POST"], ["/resume", "POST"]] as const) {
      expect((await app.get(`/api/v1/watches/${made.id}${path}`, stranger.plain, { method })).status).toBe(404);
    }
    const listed = (await (await app.get("/api/v1/watches", stranger.plain)).json()) as { watches: object[] };
    expect(listed.watches).toEqual([]);
    expect((await app.get(`/api/v1/watches/${made.id}`, owner.plain, { method: "DELETE" })).status).toBe(204);
    expect((await app.get(`/api/v1/watches/${made.id}`, owner.plain)).status).toBe(404);
  });

  test("a run that finds the watch's key passive pauses the watch and does not run", {
    timeout: scaled(60_000),
  }, async () => {
    const key = await makeKey(store.db, "PRO");
    const made = await watch(key.plain, {});
    const before = await ranAgain(key.plain, made.id, 0);
    await updateApiKey(store.db, key.id, { passive: true });
    const paused = await until("the watch paused by its run", async () => {
      const now = (await watchOf(store.db, made.id))!;
      return now.pausedAt !== null ? now : undefined;
    });
    expect(paused.pausedReason).toBe("its API key is passive");
    // The run that paused it made no run of its own (a run in flight when the key changed may have finished).
    expect(paused.runs).toBeLessThanOrEqual(before.runs + 1);
  });

  test(
    "the owner's page lists, pauses, resumes and deletes a watch; another owner's page neither shows nor touches it",
    {
      timeout: scaled(30_000),
    },
    async () => {
      const owner = new Visitor(app.app);
      expect((await owner.signUp("watcher@example.com")).status).toBe(303);
      const key = /xva_[A-Za-z0-9_-]{43}/.exec(await (await owner.createKey("watching")).text())![0];
      const made = await watch(key, { every: "1d" });
      const page = await (await owner.send("/profile/watches")).text();
      expect(page).toContain(`<code>${site.pages.growingFeed}</code>`);
      expect(page).toContain("every 86400 s");
      const csrf = await owner.csrfOf("/profile/watches");
      const stranger = new Visitor(app.app);
      expect((await stranger.signUp("stranger-watcher@example.com")).status).toBe(303);
      expect(await (await stranger.send("/profile/watches")).text()).not.toContain(site.pages.growingFeed);
      const strangerCsrf = await stranger.csrfOf("/profile/watches");
      expect((await stranger.post("/profile/watches/pause", { csrf: strangerCsrf, id: made.id })).status).toBe(404);
      const paused = await owner.post("/profile/watches/pause", { csrf, id: made.id });
      expect([paused.status, paused.headers.get("location")]).toEqual([303, "/profile/watches?notice=paused"]);
      expect(await (await owner.send("/profile/watches")).text()).toContain("Paused</span>");
      expect((await show(key, made.id)).pausedReason).toBe("paused by its owner");
      expect((await owner.post("/profile/watches/resume", { csrf, id: made.id })).status).toBe(303);
      expect((await show(key, made.id)).paused).toBe(false);
      expect((await owner.post("/profile/watches/delete", { csrf, id: made.id })).status).toBe(303);
      expect((await app.get(`/api/v1/watches/${made.id}`, key)).status).toBe(404);
    },
  );

  test("a repeat outside 15 minutes' floor (here 1 s) and 7 days, or neither or both of every and cron, is 400", async () => {
    const key = await makeKey(store.db, "PRO");
    for (
      const body of [
        { every: "8d" },
        { every: "15" },
        { every: undefined },
        { every: "1h", cron: "0 * * * *" },
        { every: undefined, cron: "not a cron line" },
      ]
    ) {
      const answer = await app.post("/api/v1/watches", key.plain, { url: site.pages.growingFeed, ...body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    const hourly = await watch(key.plain, { every: undefined, cron: "0 * * * *" });
    expect(hourly.nextRunAt).not.toBeNull();
  });
});
