// A link straight to a platform's photo file (a module's `mediaFiles`), through the whole app: `post` answers a record
// of that one photo without asking anyone, and `download` relays the file from the platform's media host (a local
// stand-in, reached through ORIGIN_OVERRIDES); a link elsewhere on those hosts is no photo file, and one with a user,
// a password, a port or http is refused by both, 403 as any relay's link. Without an override the relay resolves the
// host and connects to the address the egress policy checked, as every relay does: a private one is refused.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { UpstreamClient } from "../../src/net/relay-upstream.ts";
import { PostRecord } from "../../src/platforms/records.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

/** The bytes of the one picture every path of the stand-in serves (a PNG's signature, then filler). */
const picture = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.alloc(2000, 7)]);

/** The media hosts' stand-in: a picture at every path, and the paths it was asked for. */
async function startMediaHost(): Promise<{ origin: string; asked: string[]; close(): Promise<void> }> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/png", "content-length": picture.length }).end(picture);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

// One sample of each module's media files (src/platforms/*: X's, Newgrounds', Bluesky's).
const files = [
  ["X", "https://pbs.twimg.com/media/EqZpsRTWMAAQpXu?format=png&name=orig", "EqZpsRTWMAAQpXu"],
  ["X", "https://pbs.twimg.com/media/EqZpsRTWMAAQpXu.png", "EqZpsRTWMAAQpXu"],
  ["NEWGROUNDS", "https://art.ngfiles.com/images/0/94_tomfulp_ryu-is-hawt.png", "94_tomfulp_ryu-is-hawt"],
  [
    "BLUESKY",
    "https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:z72i7hdynmk6r22z27h6tvur/bafkreihh3m2xmhfbnnmq2xq6ujmnpwlkw6xbfqwkcxbhkmdoxvdaswtpqy@png",
    "bafkreihh3m2xmhfbnnmq2xq6ujmnpwlkw6xbfqwkcxbhkmdoxvdaswtpqy@png",
  ],
] as const;

describe("a link straight to a platform's photo file", () => {
  let store: TestStore;
  let host: Awaited<ReturnType<typeof startMediaHost>>;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, host] = await Promise.all([openTestStore("pglite"), startMediaHost()]);
    const hosts = ["pbs.twimg.com", "art.ngfiles.com", "cdn.bsky.app"];
    app = buildTestApp(store.db, {
      env: { ORIGIN_OVERRIDES: hosts.map((each) => `${each}=${host.origin}`).join(",") },
    });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(() => Promise.all([store?.close(), host?.close()]));

  const call = (operation: string, url: string, query = "") =>
    app.get(`/api/v1/${operation}?url=${encodeURIComponent(url)}${query}`, key);

  test.each(files)("post of %s's %s is the record of that one photo, asking no one", async (platform, link, id) => {
    host.asked.length = 0;
    const response = await call("post", link);
    expect(response.status).toBe(200);
    const record = PostRecord.parse(await response.json());
    expect(record).toMatchObject({ platform, id, url: link, imageUrls: [link], videoVariants: [], text: null });
    expect(record.media).toEqual([expect.objectContaining({ type: "photo", url: link, videoVariants: [] })]);
    expect(host.asked).toEqual([]);
  });

  test.each(files)("download of %s's %s relays the file as its host serves it", async (_platform, link, id) => {
    const response = await call("download", link);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-disposition")).toContain(`filename="${id}.png"`);
    expect(Buffer.from(await response.arrayBuffer()).equals(picture)).toBe(true);
    expect(host.asked.at(-1)).toBe(new URL(link).pathname + new URL(link).search);
  });

  test("a photo has one item and no sound: index 2 and audio=mp3 are 400", async () => {
    const [, link] = files[0];
    const past = await call("download", link, "&index=2");
    expect(past.status).toBe(400);
    expect(await past.json()).toMatchObject({ code: "invalid_parameter" });
    const sound = await call("download", link, "&audio=mp3");
    expect(sound.status).toBe(400);
    expect(await sound.json()).toMatchObject({ code: "invalid_parameter" });
  });

  test("another link on a media host is no photo file: post refuses it, download of X's relays it as before", async () => {
    const avatar = "https://pbs.twimg.com/profile_images/1/avatar.png";
    const post = await call("post", avatar);
    expect(post.status).toBe(400);
    expect(await post.json()).toMatchObject({ code: "unsupported_platform" });
    const download = await call("download", avatar);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(picture)).toBe(true);
    const other = await call("post", "https://art.ngfiles.com/thumbnails/0/94.png");
    expect(other.status).toBe(400);
  });

  /** `link` with a user and password, a port, or http: what the platform's media check refuses. */
  const unplain = (link: string) => {
    const [credentials, ported, http] = [new URL(link), new URL(link), new URL(link)];
    credentials.username = "user";
    credentials.password = "secret";
    ported.port = "8443";
    http.protocol = "http:";
    return [credentials.href, ported.href, http.href];
  };

  test.each(files)("%s's %s with a user, a password, a port or http is 403 to post and download", async (_, link) => {
    host.asked.length = 0;
    for (const refused of unplain(link)) {
      for (const operation of ["post", "download"]) {
        const response = await call(operation, refused);
        expect(response.status, `${operation} ${refused}`).toBe(403);
        const problem = (await response.json()) as { code: string; detail: string };
        expect(problem.code).toBe("host_not_allowed");
        expect(problem.detail).toContain("without user, password or port");
      }
    }
    expect(host.asked).toEqual([]);
  });
});

describe("a photo file's download, its host resolved and checked by the egress policy as any relay's", () => {
  let store: TestStore;
  let app: TestApp;
  let key: string;
  /** What the stand-in resolver answers for every name, and the names it was asked. */
  let addresses = ["93.184.216.34"];
  const resolved: string[] = [];
  /** The media upstream client's connections: the link and the address it was pinned to. */
  const connected: { url: string; address: string | undefined }[] = [];
  const upstream: UpstreamClient = async (request) => {
    connected.push({ url: request.url.href, address: request.address });
    return {
      status: 200,
      headers: new Headers({ "content-type": "image/png", "content-length": String(picture.length) }),
      body: request.method === "HEAD" ? null : new Response(picture).body,
      ended: Promise.resolve(),
    };
  };

  beforeAll(async () => {
    store = await openTestStore("pglite");
    const resolveHost = async (name: string) => (resolved.push(name), addresses);
    app = buildTestApp(store.db, { runtime: { resolveHost, upstream } });
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(() => store?.close());

  const download = (url: string) => app.get(`/api/v1/download?url=${encodeURIComponent(url)}`, key);
  const [, link] = files[0];

  test("a public address: the file is relayed over a connection pinned to the address that was checked", async () => {
    addresses = ["93.184.216.34"];
    const response = await download(link);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(picture)).toBe(true);
    expect(resolved.at(-1)).toBe("pbs.twimg.com");
    expect(connected.at(-1)).toEqual({ url: link, address: "93.184.216.34" });
  });

  test("a name that resolves to a private address is 403, and nothing is connected", async () => {
    addresses = ["93.184.216.34", "10.0.0.7"];
    const before = connected.length;
    const response = await download(link);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "host_not_allowed" });
    expect(connected.length).toBe(before);
  });
});
