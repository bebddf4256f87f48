// Keyless use of the cobalt door (COBALT_KEYLESS_TIER): off unless the operator sets a tier; then a
// request without a key is counted and limited per client address (an IPv4 address, an IPv6 /64) as
// a key of that tier is, through the same admission as every key; a request the door refuses before
// asking the API (its headers, its body) makes no key. The door is asked in-process, from the peer
// addresses a server adapter would hand it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCobaltDoor } from "../../src/cobalt/door.ts";
import { KEYLESS_EMAIL } from "../../src/cobalt/keyless.ts";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { fakeTweetIds, type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

const url = `https://x.com/someone/status/${fakeTweetIds.mixedMedia}`;

describe("cobalt's clients without a key", () => {
  let store: TestStore;
  let x: FakeXUpstream;
  let app: TestApp;

  beforeAll(async () => {
    [store, x] = await Promise.all([openTestStore("pglite"), startFakeXUpstream()]);
    app = buildTestApp(store.db, { env: { X_SYNDICATION_URL: x.syndicationUrl, X_CACHE_TTL_S: "3600" } });
  });
  afterAll(async () => {
    await Promise.all([store?.close(), x?.close()]);
  });

  /** A door over the test's app, with the operator's settings `env`. */
  function door(env: Record<string, string>) {
    const config = parseConfig(env);
    return createCobaltDoor({ api: app.app, db: store.db, config, log: createLogger("error"), startedAt: new Date() });
  }

  /** POST / without a key from `peer`, as a keyless client sends it; the answer's status and cobalt's status or code. */
  async function post(served: ReturnType<typeof door>, peer: string, headers: Record<string, string> = {}) {
    const request = new Request("http://door.local/", {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", ...headers },
      body: JSON.stringify({ url }),
    });
    const reply = await served.answer(request, { peer, requestId: crypto.randomUUID() });
    const body = await reply.response.json();
    return [reply.response.status, body.status === "error" ? body.error.code : body.status];
  }

  const keylessKeys = () =>
    store.db.query<{ name: string; tier: string }>(
      `SELECT k.name, k.tier FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.email = $1 ORDER BY k.name`,
      [KEYLESS_EMAIL],
    );

  it("asks for a key unless the operator chose a tier", async () => {
    expect(await post(door({}), "203.0.113.5")).toEqual([400, "error.api.auth.key.missing"]);
    expect(await keylessKeys()).toEqual([]);
  });

  it("counts and limits keyless requests per client address under the operator's tier", async () => {
    const free = door({ COBALT_KEYLESS_TIER: "FREE" });
    // FREE's burst is 10 calls a minute: the 11th of one address is refused, another address has its own.
    for (let sent = 1; sent <= 10; sent++) expect(await post(free, "203.0.113.5")).toEqual([200, "picker"]);
    expect(await post(free, "203.0.113.5")).toEqual([429, "error.api.rate_exceeded"]);
    expect(await post(free, "203.0.113.6")).toEqual([200, "picker"]);
    // One IPv6 /64 is one client, as for every per-client limit.
    expect(await post(free, "2001:db8::1")).toEqual([200, "picker"]);
    expect(await post(free, "2001:db8::2")).toEqual([200, "picker"]);
    expect(await keylessKeys()).toEqual([
      { name: "keyless 2001:db8:0:0::/64", tier: "FREE" },
      { name: "keyless 203.0.113.5", tier: "FREE" },
      { name: "keyless 203.0.113.6", tier: "FREE" },
    ]);
    // A key sent is used as it is: a wrong one is not made keyless.
    expect(await post(free, "203.0.113.7", { authorization: "Api-Key nope" })).toEqual([
      400,
      "error.api.auth.key.invalid",
    ]);
  });

  it("answers a malformed keyless request with its error and makes no key for its address", async () => {
    const free = door({ COBALT_KEYLESS_TIER: "FREE" });
    const json = { accept: "application/json", "content-type": "application/json" };
    const malformed: [headers: Record<string, string>, body: string, code: string][] = [
      [{ ...json, accept: "text/html" }, JSON.stringify({ url }), "error.api.header.accept"],
      [{ ...json, "content-type": "text/plain" }, JSON.stringify({ url }), "error.api.header.content_type"],
      [json, "{not json", "error.api.invalid_body"],
      [json, JSON.stringify({ link: url }), "error.api.link.missing"],
      [json, JSON.stringify({ url, videoQuality: "9000" }), "error.api.invalid_body"],
      [json, JSON.stringify({ url: "not a link" }), "error.api.link.invalid"],
    ];
    for (const [at, [headers, body, code]] of malformed.entries()) {
      const request = new Request("http://door.local/", { method: "POST", headers, body });
      const reply = await free.answer(request, { peer: `198.51.100.${at + 1}`, requestId: crypto.randomUUID() });
      expect(reply.response.status).toBe(400);
      expect((await reply.response.json()).error.code).toBe(code);
    }
    expect((await keylessKeys()).filter((key) => key.name.startsWith("keyless 198.51.100."))).toEqual([]);
    // The same address's first well-formed request is the one that makes its key.
    expect(await post(free, "198.51.100.1")).toEqual([200, "picker"]);
    expect((await keylessKeys()).filter((key) => key.name.startsWith("keyless 198.51.100."))).toEqual([
      { name: "keyless 198.51.100.1", tier: "FREE" },
    ]);
  });

  it("reads the client behind a trusted proxy, and takes another tier the operator sets later", async () => {
    const gold = door({ COBALT_KEYLESS_TIER: "GOLD", TRUST_PROXY: "127.0.0.1" });
    expect(await post(gold, "127.0.0.1", { "x-forwarded-for": "203.0.113.5" })).toEqual([200, "picker"]);
    expect((await keylessKeys()).find((key) => key.name === "keyless 203.0.113.5")?.tier).toBe("GOLD");
  });
});
