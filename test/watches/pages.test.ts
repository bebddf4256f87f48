// The owner's watches page without a browser: a watch made with its form goes through POST
// /api/v1/watches as the key chosen (its refusals said on the page, the form kept), is refused
// from another site, is paused and deleted with its buttons, and another owner never sees it.
// The queue holds the watches' runs; no worker runs, so nothing reaches the platform.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { createApiKey } from "../../src/store/api-keys.ts";
import { watchesOf } from "../../src/watches/store.ts";
import { buildTestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { Visitor } from "../helpers/visitor.ts";
import { scaled } from "../helpers/slowness.ts";

const CHANNEL = "https://www.youtube.com/@a-channel";

describe("the watches page", () => {
  let store: TestStore;
  let queue: Queue;
  let app: App;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    queue = await startQueue(store.db, { retries: 0, retryDelayS: 1, heartbeatS: 10, pollS: 2 }, console.error);
    app = buildTestApp(store.db, { queue }).app;
  }, scaled(60_000));
  afterAll(async () => {
    await queue?.stop();
    await store?.close();
  });

  it("makes a watch through the API as the chosen key, pauses and deletes it, and shows it to its owner alone", async () => {
    const visitor = new Visitor(app);
    const email = "watch-page@example.com";
    expect((await visitor.signUp(email)).status).toBe(303);
    const [{ id }] = await store.db.query<{ id: number }>("SELECT id FROM accounts WHERE email = $1", [email]) as [
      { id: number },
    ];
    const accountId = Number(id);
    const { key } = await createApiKey(store.db, {
      accountId,
      name: "w",
      tier: "FREE",
      expiresInDays: null,
      now: new Date(),
    });
    const csrf = await visitor.csrfOf("/profile/watches");
    const make = (every: string, headers?: Record<string, string>) =>
      visitor.post("/profile/watches", { csrf, url: CHANNEL, every, key: key.id }, headers);

    const tooOften = await make("1m");
    expect(tooOften.status).toBe(400);
    const refused = await tooOften.text();
    expect(refused).toMatch(/class="error" role="alert">[^<]*(900|15 minutes)/);
    expect(refused).toContain(`value="${CHANNEL}"`);
    expect((await make("6h", { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(await watchesOf(store.db, accountId)).toEqual([]);

    const made = await make("6h");
    expect(made.status).toBe(303);
    const [watch] = await watchesOf(store.db, accountId);
    expect(made.headers.get("location")).toBe(`/profile/watches?notice=made#watch-${watch!.id}`);
    expect([watch!.url.href, watch!.apiKeyId]).toEqual([CHANNEL, key.id]);
    const page = await (await visitor.send("/profile/watches?notice=made")).text();
    expect(page).toContain(`<tr id="watch-${watch!.id}">`);
    expect(page).toContain("The watch is made");

    const stranger = new Visitor(app);
    expect((await stranger.signUp("watch-stranger@example.com")).status).toBe(303);
    expect(await (await stranger.send("/profile/watches")).text()).not.toContain(watch!.id);

    const act = (action: string) => visitor.post(`/profile/watches/${action}`, { csrf, id: watch!.id });
    expect((await act("pause")).status).toBe(303);
    expect((await watchesOf(store.db, accountId))[0]!.pausedAt).not.toBeNull();
    expect((await act("delete")).status).toBe(303);
    expect(await watchesOf(store.db, accountId)).toEqual([]);
  });
});
