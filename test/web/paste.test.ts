// Issue 43 items 6 and 8: the paste page looks a post up only on a post of its own form (its CSRF
// token, from this site), works for an owner who just signed up (a key is made for it at the first
// look and shown on the keys page), and calls the API from the owner's address, so the accounts of
// one address share one fair share of extractions there as they do when they call the API.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { listApiKeys } from "../../src/store/api-keys.ts";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { buildTestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { until } from "../helpers/until.ts";
import { Visitor } from "../helpers/visitor.ts";
import { scaled } from "../helpers/slowness.ts";

/** A page host whose pages answer only when the test says, so that their extractions hold their slots until then. */
interface HeldPages {
  host: string;
  url(name: string): string;
  asked: number;
  release(): void;
  close(): Promise<void>;
}

async function startHeldPages(mediaOrigin: string): Promise<HeldPages> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = { asked: 0 } as HeldPages;
  const server: Server = createServer(async (_request, response) => {
    held.asked += 1;
    await released;
    response.writeHead(200, { "content-type": "text/html" }).end(
      `<!DOCTYPE html><html><head><title>Held clip</title></head><body><video src="${mediaOrigin}/media/clip.mp4"></video></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(held, {
    host,
    url: (name: string) => `http://${host}/${name}.html`,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

describe("the paste page", () => {
  let store: TestStore;
  let site: MediaSite;
  let held: HeldPages;
  let app: App;

  beforeAll(async () => {
    [store, site] = await Promise.all([openTestStore("pglite"), startMediaSite()]);
    held = await startHeldPages(site.origin);
    app = buildTestApp(store.db, { env: { EXTRA_PAGE_HOSTS: `${site.host},${held.host}` } }).app;
  }, scaled(60_000));
  afterAll(async () => {
    held?.release();
    await Promise.all([store?.close(), site?.close(), held?.close()]);
  });

  async function owner(email: string, address?: string): Promise<Visitor> {
    const visitor = new Visitor(app, address);
    expect((await visitor.signUp(email)).status).toBe(303);
    return visitor;
  }
  const paste = async (visitor: Visitor, link: string, headers?: Record<string, string>) =>
    visitor.post("/paste", { csrf: await visitor.csrfOf("/paste"), url: link }, headers);

  it(
    "shows a new owner the post at the first look, counted against a key made for it and shown on the keys page",
    async () => {
      const visitor = await owner("new-paster@example.com");
      const form = await (await visitor.send("/paste")).text();
      expect(form).toContain('method="post" action="/paste"');
      expect(form).not.toContain("disabled");
      expect(form).toContain("your first look makes one named “Paste page”");

      const shown = await paste(visitor, site.pages.progressive);
      const page = await shown.text();
      expect(shown.status, page).toBe(200);
      expect(page).toContain("Progressive test clip");
      expect(page).toMatch(/href="http:\/\/keys\.test\/api\/v1\/download\?[^"]*kid=/);
      const keysPage = await (await visitor.send("/profile/api-keys")).text();
      expect(keysPage).toContain("Paste page");
      // One key, used once; the next look uses it again and makes no other.
      const [key] = await store.db.query<{ id: string; account_id: number }>(
        "SELECT k.id, k.account_id FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.email = 'new-paster@example.com'",
      );
      const keys = await listApiKeys(store.db, { now: new Date("2026-01-01T00:00:00Z"), accountId: key!.account_id });
      expect(keys.map(({ name, used24h }) => [name, used24h])).toEqual([["Paste page", 1]]);
      expect((await paste(visitor, site.pages.progressive)).status).toBe(200);
      const after = await listApiKeys(store.db, { now: new Date("2026-01-01T00:00:00Z"), accountId: key!.account_id });
      expect(after.map(({ name, used24h }) => [name, used24h])).toEqual([["Paste page", 2]]);
    },
    scaled(120_000),
  );

  it("looks nothing up on a GET, nor on a post from another site or without the form's token", async () => {
    const visitor = await owner("careful-paster@example.com");
    const link = encodeURIComponent(site.pages.progressive);
    const viewed = await visitor.send(`/paste?url=${link}`);
    const page = await viewed.text();
    expect(viewed.status).toBe(200);
    expect(page).not.toContain("Progressive test clip");
    expect(page).toContain(`value="${site.pages.progressive}"`);
    const crossSite = await paste(visitor, site.pages.progressive, { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const tokenless = await visitor.post("/paste", { url: site.pages.progressive });
    expect(tokenless.status).toBe(403);
    // Nothing was asked, so no key was made either.
    const [{ n }] = await store.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE a.email = 'careful-paster@example.com'",
    ) as [{ n: number }];
    expect(n).toBe(0);
  }, scaled(120_000));

  it("gives three FREE accounts of one address one extraction at a time, as the API does", async () => {
    const owners = await Promise.all(["a", "b", "c"].map((name) => owner(`shared-${name}@example.com`, "192.0.2.200")));
    let answered = 0;
    const looks = owners.map(async (visitor, i) => {
      const response = await paste(visitor, held.url(`clip-${i}`));
      answered += 1;
      return { status: response.status, page: await response.text() };
    });
    // Two refused while the first holds its slot, or all three extracting (then the share was not kept).
    await until("two looks refused, or three extracting", () => answered >= 2 || held.asked >= 3, 120_000);
    held.release();
    const results = await Promise.all(looks);
    expect(results.map(({ status }) => status).sort()).toEqual([200, 429, 429]);
    for (const { status, page } of results) {
      if (status === 429) expect(page).toContain("for the accounts of one client address");
    }
  }, scaled(240_000));
});
