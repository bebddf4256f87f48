// Delivering events to a real receiver on this machine, which verifies each one with the
// standardwebhooks package. The queue here is the list of deliveries asked for, run by the test in
// turn: what the queue adds (surviving restarts, one instance per attempt) is tested through it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attemptDelivery, type DeliveryDeps, publishEvent } from "../../src/webhooks/delivery.ts";
import { newEndpointSecret } from "../../src/webhooks/signature.ts";
import { createLogger } from "../../src/log.ts";
import { type EgressPolicy, endpointKey } from "../../src/net/egress.ts";
import { createOutbound } from "../../src/net/outbound.ts";
import { nodeUpstream } from "../../src/runtime/node/relay-upstream.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { createEndpoint, endpointOf, recentAttempts } from "../../src/webhooks/store.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver that answers each delivery with the next status of `answers` (then 200) and keeps what came. */
async function receiver(answers: number[], extra: Record<string, string> = {}) {
  const received: Received[] = [];
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    received.push({ headers: request.headers as Record<string, string>, body });
    response.writeHead(answers.shift() ?? 200, extra).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hooks`, port, received, close: () => server.close() };
}

/** The client deliveries use, over Node's upstream client, with the egress policy given. */
const receiversWith = (policy: EgressPolicy) =>
  createOutbound({
    name: "The webhook receiver",
    timeoutMs: 5_000,
    upstream: nodeUpstream,
    policy,
    originOverrides: new Map(),
  });

describe.each(storeKinds)("webhook deliveries on %s", (kind) => {
  let store: TestStore;
  let accountId: number;
  beforeAll(async () => {
    store = await openTestStore(kind);
    accountId = (await createAccount(store.db, `hooks-${kind}@example.com`, "x"))!.id;
  });
  afterAll(() => store?.close());

  /** Deps whose queue is a list; `drain` runs what it holds, in order, as the queue's worker would. */
  function deliveries(port: number, schedule = [0, 1, 2]) {
    const queued: { messageId: string; attempt: number; startAfterS: number }[] = [];
    const deps: DeliveryDeps = {
      db: store.db,
      send: async (items) => void queued.push(...items),
      prepare: async () => {},
      schedule,
      receivers: receiversWith({
        trusted: new Set([endpointKey("127.0.0.1", port)]),
        resolveHost: async () => ["127.0.0.1"],
      }),
      now: () => new Date(),
      log: createLogger("silent"),
    };
    const drain = async () => {
      while (queued.length > 0) await attemptDelivery(deps, queued.shift()!);
    };
    return { deps, queued, drain };
  }

  async function endpoint(url: string, events = ["job.completed"]) {
    const secret = newEndpointSecret();
    const made = await createEndpoint(store.db, { accountId, url, events, secret, max: 10 });
    return { ...made!, secret };
  }

  it("delivers a signed event that the standard's library verifies, once, with a 2xx", async () => {
    const target = await receiver([]);
    const hook = await endpoint(target.url);
    const { deps, drain } = deliveries(target.port);
    expect(await publishEvent(deps, { accountId, type: "job.completed", data: { id: "j1" }, endpointId: hook.id }))
      .toBe(1);
    await drain();
    target.close();
    expect(target.received).toHaveLength(1);
    const [{ headers, body }] = target.received as [Received];
    expect(new Webhook(hook.secret).verify(body, headers)).toMatchObject({ type: "job.completed", data: { id: "j1" } });
    expect(() => new Webhook(hook.secret).verify(body.replace("j1", "j2"), headers)).toThrow();
    const [attempt] = await recentAttempts(store.db, hook.id, 5);
    expect(attempt).toMatchObject({ status: 200, type: "job.completed", error: null });
  });

  it("tries again on the schedule after 500 and 500, with the same webhook-id, and delivers on the third", async () => {
    const target = await receiver([500, 500]);
    const hook = await endpoint(target.url);
    const { deps, queued, drain } = deliveries(target.port, [0, 5, 300]);
    await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
    expect(queued.map((item) => item.startAfterS)).toEqual([0]);
    await attemptDelivery(deps, queued.shift()!);
    expect(queued).toMatchObject([{ attempt: 1, startAfterS: 5 }]);
    await attemptDelivery(deps, queued.shift()!);
    expect(queued).toMatchObject([{ attempt: 2, startAfterS: 300 }]);
    await drain();
    target.close();
    expect(target.received.map((each) => each.headers["webhook-id"])).toEqual(
      Array(3).fill(target.received[0]!.headers["webhook-id"]),
    );
    expect((await recentAttempts(store.db, hook.id, 5)).map((each) => each.status)).toEqual([200, 500, 500]);
    expect((await endpointOf(store.db, hook.id, accountId))!.failingSince).toBeNull();
  });

  it.each(["large", "endless"] as const)(
    "delivers once to a receiver whose 2xx carries a %s body, which is not read",
    async (answerBody) => {
      const target = await startReceiver();
      target.state.answerBody = answerBody;
      const hook = await endpoint(target.url);
      const { deps, queued, drain } = deliveries(target.port, [0, 0, 0]);
      await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
      await drain();
      await target.close();
      expect(queued).toEqual([]);
      expect(target.received).toHaveLength(1);
      const attempts = await recentAttempts(store.db, hook.id, 5);
      expect(attempts.map((each) => [each.status, each.error])).toEqual([[200, null]]);
    },
  );

  it("does not follow a redirect, and gives up after the schedule's last attempt", async () => {
    const elsewhere = await receiver([]);
    const target = await receiver([302, 302], { location: elsewhere.url });
    const hook = await endpoint(target.url);
    const { deps, drain } = deliveries(target.port, [0, 0]);
    await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
    await drain();
    target.close();
    elsewhere.close();
    expect(elsewhere.received).toHaveLength(0);
    expect(target.received).toHaveLength(2);
    const attempts = await recentAttempts(store.db, hook.id, 5);
    expect(attempts.map((each) => [each.status, each.error])).toEqual([
      [302, "redirect not followed"],
      [302, "redirect not followed"],
    ]);
  });

  it("disables an endpoint that answers 410 Gone, and sends it nothing more", async () => {
    const target = await receiver([410]);
    const hook = await endpoint(target.url, ["job.failed"]);
    const { deps, drain } = deliveries(target.port);
    await publishEvent(deps, { accountId, type: "job.failed", data: {}, endpointId: null });
    await drain();
    expect((await endpointOf(store.db, hook.id, accountId))!.disabledReason).toBe("the receiver answered 410 Gone");
    expect(await publishEvent(deps, { accountId, type: "job.failed", data: {}, endpointId: null })).toBe(0);
    target.close();
    expect(target.received).toHaveLength(1);
  });

  it("disables an endpoint whose every attempt has failed for five days, saying since when", async () => {
    const target = await receiver([500, 500, 500]);
    const hook = await endpoint(target.url);
    const { deps, drain } = deliveries(target.port, [0]);
    const first = new Date();
    deps.now = () => first;
    await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
    await drain();
    deps.now = () => new Date(first.getTime() + 4 * 86_400_000);
    await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
    await drain();
    expect((await endpointOf(store.db, hook.id, accountId))!.disabledAt).toBeNull();
    deps.now = () => new Date(first.getTime() + 5 * 86_400_000);
    await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
    await drain();
    target.close();
    const disabled = (await endpointOf(store.db, hook.id, accountId))!;
    expect(disabled.disabledReason).toBe(`every attempt failed since ${first.toISOString()}`);
    expect(await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id })).toBe(0);
  });

  it("refuses at delivery a receiver whose name has come to resolve to a private address", async () => {
    const target = await receiver([]);
    const hook = await endpoint(target.url.replace("127.0.0.1", "hooks.example.com"));
    const { deps, drain } = deliveries(target.port, [0]);
    deps.receivers = receiversWith({ trusted: new Set(), resolveHost: async () => ["127.0.0.1"] });
    await publishEvent(deps, { accountId, type: "job.completed", data: {}, endpointId: hook.id });
    await drain();
    target.close();
    expect(target.received).toHaveLength(0);
    const [attempt] = await recentAttempts(store.db, hook.id, 1);
    expect(attempt!.status).toBeNull();
    expect(attempt!.error).toMatch(/does not reach.*public address/);
  });
});
