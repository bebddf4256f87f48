// The owner's webhooks page: add an endpoint (its secret shown once, a receiver the egress policy
// refuses told on the page), rotate its secret, delete it; another owner never sees it; each
// endpoint's latest attempts (time, event, status, latency) with a resend button, and a disabled
// endpoint said so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { type Queue, startQueue } from "../../src/queue/queue.ts";
import { createMessages, disableEndpoint, recordAttempt } from "../../src/webhooks/store.ts";
import { buildTestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { Visitor } from "../helpers/visitor.ts";
import { scaled } from "../helpers/slowness.ts";

const RECEIVER = "http://127.0.0.1:9/hooks";

describe("the webhooks page", () => {
  let store: TestStore;
  let app: App;
  let strict: App;
  let queue: Queue;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    // A queue for the resend button; no worker runs, so what it sends stays queued.
    queue = await startQueue(store.db, { retries: 0, retryDelayS: 1, heartbeatS: 10, pollS: 2 }, console.error);
    app = buildTestApp(store.db, { env: { WEBHOOK_EXTRA_HOSTS: "127.0.0.1:9" }, queue }).app;
    strict = buildTestApp(store.db).app;
  }, scaled(60_000));
  afterAll(async () => {
    await queue?.stop();
    await store?.close();
  });

  async function owner(on: App, email: string): Promise<Visitor> {
    const visitor = new Visitor(on);
    expect((await visitor.signUp(email)).status).toBe(303);
    return visitor;
  }

  /** The add form as a browser posts it: `events` once per ticked box. */
  async function add(visitor: Visitor, url: string, events = ["job.completed", "job.failed"]) {
    const body = new URLSearchParams({ csrf: await visitor.csrfOf("/profile/webhooks"), url });
    for (const type of events) body.append("events", type);
    return visitor.send("/profile/webhooks", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: body.toString(),
    });
  }

  it("adds an endpoint and shows its secret once; the list shows the endpoint and never the secret", async () => {
    const visitor = await owner(app, "hooks-page@example.com");
    const added = await add(visitor, RECEIVER);
    expect(added.status).toBe(201);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(await added.text())![0];
    const page = await (await visitor.send("/profile/webhooks")).text();
    expect(page).toContain(`<code>${RECEIVER}</code>`);
    expect(page).toContain("job.completed, job.failed");
    expect(page).not.toContain(secret);
    const stranger = await owner(app, "hooks-stranger@example.com");
    expect(await (await stranger.send("/profile/webhooks")).text()).not.toContain(RECEIVER);
  });

  it("rotates a secret and deletes an endpoint", async () => {
    const visitor = await owner(app, "hooks-rotate@example.com");
    const first = /whsec_[A-Za-z0-9+/=]+/.exec(await (await add(visitor, RECEIVER)).text())![0];
    const page = await (await visitor.send("/profile/webhooks")).text();
    const id = /name="id" value="([0-9a-f-]{36})"/.exec(page)![1]!;
    const csrf = await visitor.csrfOf("/profile/webhooks");
    const rotated = await (await visitor.post("/profile/webhooks/rotate", { csrf, id })).text();
    const second = /whsec_[A-Za-z0-9+/=]+/.exec(rotated)![0];
    expect(second).not.toBe(first);
    const deleted = await visitor.post("/profile/webhooks/delete", { csrf, id });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/profile/webhooks?notice=deleted");
    expect(await (await visitor.send("/profile/webhooks")).text()).not.toContain(`<code>${RECEIVER}</code>`);
    expect((await visitor.post("/profile/webhooks/delete", { csrf, id: "not-an-id" })).status).toBe(404);
  });

  it("names the job and the watch each attempt's event was about, linked to their pages", async () => {
    const visitor = await owner(app, "hooks-subjects@example.com");
    await add(visitor, RECEIVER, ["job.item.failed", "watch.found"]);
    const id = /name="id" value="([0-9a-f-]{36})"/.exec(await (await visitor.send("/profile/webhooks")).text())![1]!;
    const [accountRow] = await store.db.query<{ id: number }>("SELECT id FROM accounts WHERE email = $1", [
      "hooks-subjects@example.com",
    ]);
    const bodies = {
      "job.item.failed": { job: { id: "job-<1>" }, item: { position: 1 } },
      "watch.found": { watch: { id: "watch-2" }, job: { id: "job-3" }, posts: [] },
    };
    for (const [type, data] of Object.entries(bodies)) {
      const [messageId] = await createMessages(store.db, {
        accountId: Number(accountRow!.id),
        type,
        body: JSON.stringify({ type, timestamp: "2026-03-04T05:06:00Z", data }),
        endpointId: id,
        ids: () => `msg_${type}`,
      });
      const at = new Date();
      await recordAttempt(store.db, {
        messageId: messageId!,
        endpointId: id,
        at,
        status: 200,
        latencyMs: 5,
        error: null,
        outcome: "delivered",
      });
    }
    const page = await (await visitor.send("/profile/webhooks")).text();
    expect(page).toContain('<a href="/profile/jobs?id=job-%3C1%3E">job <code>job-&lt;1&gt;</code></a>');
    expect(page).toContain('<a href="/profile/watches#watch-watch-2">watch <code>watch-2</code></a>');
    expect(page).toContain('<a href="/profile/jobs?id=job-3">job <code>job-3</code></a>');
  });

  it("shows each attempt's time, event, status and latency, says an endpoint failing for days is disabled, and resends once enabled", async () => {
    const visitor = await owner(app, "hooks-attempts@example.com");
    await add(visitor, RECEIVER);
    const id = /name="id" value="([0-9a-f-]{36})"/.exec(await (await visitor.send("/profile/webhooks")).text())![1]!;
    const [accountRow] = await store.db.query<{ id: number }>("SELECT id FROM accounts WHERE email = $1", [
      "hooks-attempts@example.com",
    ]);
    const [messageId] = await createMessages(store.db, {
      accountId: Number(accountRow!.id),
      type: "job.completed",
      body: "{}",
      endpointId: id,
      ids: () => "msg_attempted",
    });
    const at = new Date("2026-03-04T05:06:00Z");
    await recordAttempt(store.db, {
      messageId: messageId!,
      endpointId: id,
      at,
      status: 500,
      latencyMs: 123,
      error: null,
      outcome: "given_up",
    });
    await disableEndpoint(store.db, id, `every attempt failed since ${at.toISOString()}`, at);
    const page = await (await visitor.send("/profile/webhooks")).text();
    expect(page).toContain(
      '<td data-label="Time"><time datetime="2026-03-04T05:06:00.000Z">2026-03-04 05:06 UTC</time></td>',
    );
    expect(page).toContain('<td data-label="Event">job.completed</td>');
    expect(page).toContain('<td data-label="Status">500</td>');
    expect(page).toContain('<td data-label="Latency">123 ms</td>');
    expect(page).toContain(`Disabled</span> since`);
    expect(page).toContain("every attempt failed since 2026-03-04T05:06:00.000Z");
    const csrf = await visitor.csrfOf("/profile/webhooks");
    const refused = await visitor.post("/profile/webhooks/resend", { csrf, message: "msg_attempted" });
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain("its endpoint is disabled");
    await visitor.post("/profile/webhooks/rotate", { csrf, id });
    const resent = await visitor.post("/profile/webhooks/resend", { csrf, message: "msg_attempted" });
    expect([resent.status, resent.headers.get("location")]).toEqual([303, "/profile/webhooks?notice=resent"]);
    const [message] = await store.db.query<{ given_up_at: Date | null }>(
      "SELECT given_up_at FROM webhook_messages WHERE id = $1",
      ["msg_attempted"],
    );
    expect(message!.given_up_at).toBeNull();
  });

  it("tells on the page why a receiver on this machine is refused without WEBHOOK_EXTRA_HOSTS", async () => {
    const visitor = await owner(strict, "hooks-strict@example.com");
    const refused = await add(visitor, RECEIVER);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/public address/);
    const none = await add(visitor, "https://example.com/hooks", []);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("Choose at least one event.");
  });
});
