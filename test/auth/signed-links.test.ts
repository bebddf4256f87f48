// Signed links through the whole app on both stores: every record names its downloads with links
// that work without a header (Range and HEAD too), count against the key that made them, and are
// refused with their own code once changed, expired, rotated, or when their key is passive,
// expired or deleted. X's fake API and CDN serve the files, whose bytes are known.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LinkedPostRecord, LinkedTweetRecord } from "../../src/platforms/records.ts";
import { deleteApiKey, listApiKeys, updateApiKey } from "../../src/store/api-keys.ts";
import { LONGEST_LINK_TTL_S, signLink } from "../../src/auth/signed-link.ts";
import { readLinkSecret, rotateLinkSecret } from "../../src/store/link-secret.ts";
import { type FakeCdn, fakeSha256, startFakeCdn } from "../fakes/cdn.ts";
import { fakeTweetIds, type FakeXUpstream, mixedMediaFiles, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, storeKinds, type TestStore } from "../helpers/stores.ts";

const sha256 = async (response: Response) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", await response.arrayBuffer())).toString("hex");
const link = `https://x.com/someone/status/${fakeTweetIds.mixedMedia}`;
const [photo, video] = mixedMediaFiles;

describe.each(storeKinds)("signed links (%s)", (kind) => {
  let store: TestStore;
  let x: FakeXUpstream;
  let cdn: FakeCdn;
  let env: Record<string, string>;
  let app: TestApp;

  beforeAll(async () => {
    [store, x, cdn] = await Promise.all([openTestStore(kind), startFakeXUpstream(), startFakeCdn()]);
    env = {
      X_SYNDICATION_URL: x.syndicationUrl,
      ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin},pbs.twimg.com=${cdn.origin}`,
      LINK_TTL_S: "600",
    };
    app = buildTestApp(store.db, { env });
  });
  afterAll(async () => {
    await Promise.all([store?.close(), x?.close(), cdn?.close()]);
  });

  /** A fresh key and the post record it asked for. */
  async function postFor(tier: "FREE" | "GOLD" = "GOLD") {
    const key = await makeKey(store.db, tier, { now: app.clock.now() });
    const response = await app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key.plain);
    expect(response.status).toBe(200);
    return { key, record: LinkedPostRecord.parse(await response.json()) };
  }
  /** A link called as a browser would: no header at all. */
  const open = (href: string, init: RequestInit = {}) => app.app.fetch(new Request(href, init));
  const codeOf = async (response: Response) => [response.status, (await response.json()).code];

  it("downloads the whole file from the record's, the first item's and the first variant's link, with no header", async () => {
    const { key, record } = await postFor();
    const links = [record.downloadUrl, record.media[0]!.downloadUrl, record.videoVariants[0]!.downloadUrl];
    for (const href of links) {
      expect(href.startsWith("http://test.local/api/v1/download?")).toBe(true);
      expect(href).not.toContain(key.plain);
      expect(new URL(href).searchParams.get("kid")).toBe(key.id);
    }
    const files = [video, photo, video];
    for (const [at, href] of links.entries()) {
      const response = await open(href);
      expect(response.status, href).toBe(200);
      expect(response.headers.get("content-length")).toBe(String(files[at]!.size));
      expect(await sha256(response)).toBe(fakeSha256(0, files[at]!.size));
    }
    expect(record.media[1]!.videoVariants[0]!.downloadUrl).toContain("index=2");
  });

  it("takes Range and HEAD, and counts each use against the key that made the link", async () => {
    const { key, record } = await postFor();
    const used = async () => (await listApiKeys(store.db, { now: app.clock.now(), id: key.id }))[0]!.used24h;
    expect(await used()).toBe(1);
    const part = await open(record.downloadUrl, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("x-ratelimit-remaining")).toBe(String(100_000 - 2));
    expect(await sha256(part)).toBe(fakeSha256(100, 200));
    const head = await open(record.downloadUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(video.size));
    expect(await used()).toBe(3);
  });

  it("refuses a link with any byte changed with 403 link_invalid", async () => {
    const { record } = await postFor();
    const href = record.downloadUrl;
    const url = new URL(href);
    const changed = [
      href.replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`),
      href.slice(0, -1) + (href.endsWith("A") ? "B" : "A"),
      href.replace(
        `expires=${url.searchParams.get("expires")}`,
        `expires=${Number(url.searchParams.get("expires")) + 1}`,
      ),
      href.replace("status", "statuz"),
      `${href}&format=720p`,
      href.replace(/&sig=[^&]+/, ""),
    ];
    for (const bad of changed) expect(await codeOf(await open(bad)), bad).toEqual([403, "link_invalid"]);
    // A signature does not carry over to another operation.
    expect(await codeOf(await open(href.replace("/download?", "/post?")))).toEqual([403, "link_invalid"]);
  });

  it("refuses a link after LINK_TTL_S with 403 link_expired, and every link after the secret is rotated", async () => {
    const { record } = await postFor();
    app.clock.advance(599_000);
    expect((await open(record.downloadUrl, { method: "HEAD" })).status).toBe(200);
    app.clock.advance(1_000);
    expect(await codeOf(await open(record.downloadUrl))).toEqual([403, "link_expired"]);

    const fresh = await postFor();
    await rotateLinkSecret(store.db, app.clock.now());
    expect(await codeOf(await open(fresh.record.downloadUrl))).toEqual([403, "link_invalid"]);
    const after = await postFor();
    expect((await open(after.record.downloadUrl, { method: "HEAD" })).status).toBe(200);
  });

  it("refuses a link that expires further ahead than the longest LINK_TTL_S, though signed with the secret", async () => {
    const { key } = await postFor();
    const secret = await readLinkSecret(store.db);
    const lasting = (seconds: number) =>
      signLink(secret, "/api/v1/download", { url: link }, {
        base: "http://test.local",
        keyId: key.id,
        expiresAt: new Date(app.clock.now().getTime() + seconds * 1000),
      });
    expect((await open(await lasting(LONGEST_LINK_TTL_S), { method: "HEAD" })).status).toBe(200);
    expect(await codeOf(await open(await lasting(LONGEST_LINK_TTL_S + 3600)))).toEqual([403, "link_invalid"]);
    const until2100 = (Date.parse("2100-01-01T00:00:00Z") - app.clock.now().getTime()) / 1000;
    expect(await codeOf(await open(await lasting(until2100)))).toEqual([403, "link_invalid"]);
  });

  it("refuses the links of a passive, an expired and a deleted key, each with its own code", async () => {
    const passive = await postFor();
    await updateApiKey(store.db, passive.key.id, { passive: true });
    expect(await codeOf(await open(passive.record.downloadUrl))).toEqual([403, "key_passive"]);
    await updateApiKey(store.db, passive.key.id, { passive: false });
    expect((await open(passive.record.downloadUrl, { method: "HEAD" })).status).toBe(200);

    const deleted = await postFor();
    await deleteApiKey(store.db, deleted.key.id, app.clock.now());
    expect(await codeOf(await open(deleted.record.downloadUrl))).toEqual([403, "key_deleted"]);

    const key = await makeKey(store.db, "GOLD", { now: app.clock.now(), expiresInDays: 1 });
    const record = LinkedPostRecord.parse(
      await (await app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key.plain)).json(),
    );
    await store.db.query("UPDATE api_keys SET expires_at = $2 WHERE id = $1", [key.id, app.clock.now()]);
    expect(await codeOf(await open(record.downloadUrl))).toEqual([403, "key_expired"]);
  });

  it("answers 429 for a link past its key's daily quota, as for a call with the key", async () => {
    const { key, record } = await postFor("FREE");
    await store.db.query("UPDATE usage_minutes SET count = 100 WHERE api_key_id = $1", [key.id]);
    expect(await codeOf(await open(record.downloadUrl))).toEqual([429, "quota_exceeded"]);
  });

  it("gives the tweet record its links too, and starts links with PUBLIC_URL when set", async () => {
    const behindProxy = buildTestApp(store.db, {
      env: { ...env, PUBLIC_URL: "https://media.example.com/api-base/" },
      clock: app.clock,
    });
    const key = await makeKey(store.db, "GOLD", { now: app.clock.now() });
    const response = await behindProxy.get(`/api/v1/tweet?url=${encodeURIComponent(link)}`, key.plain);
    const tweet = LinkedTweetRecord.parse(await response.json());
    expect(
      tweet.downloadUrl.startsWith(
        "https://media.example.com/api-base/api/v1/download?url=https%3A%2F%2Fx.com%2Fi%2Fstatus%2F",
      ),
    ).toBe(true);
    const variant = new URL(tweet.media[1]!.videoVariants[0]!.downloadUrl);
    expect(variant.searchParams.get("url")).toBe(video.url);
    // The proxy hands the path on as it is; the signature is over the service's own path.
    const local = `http://test.local/api/v1/download${variant.search}`;
    expect(await sha256(await open(local))).toBe(fakeSha256(0, video.size));
  });
});
