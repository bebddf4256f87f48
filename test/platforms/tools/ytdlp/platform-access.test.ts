// The operator's say over how the service reaches platforms: their cookie file (for yt-dlp,
// ffmpeg and X), and a clear answer with a count when a platform refuses this server. Real
// yt-dlp and ffmpeg against a local site, and the fake X upstream.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cookieFile } from "../../../../src/platforms/tools/ytdlp/cookie-file.ts";
import { wholeFile } from "../../../../src/platforms/cookie-jars.ts";
import { createPageClient } from "../../../../src/platforms/tools/ytdlp/client.ts";
import { createCliExtractor } from "../../../../src/processes/extractor.ts";
import { nodeProcesses } from "../../../../src/runtime/node/processes.ts";
import { nodeFilesIn } from "../../../../src/runtime/node/files.ts";
import { type MediaSite, membersCookie, startMediaSite } from "../../../fakes/media-site.ts";
import { fakeTweetIds, type FakeXUpstream, startFakeXUpstream, xSession } from "../../../fakes/x-upstream.ts";
import { buildTestApp, makeKey } from "../../../helpers/app.ts";
import { probeMedia } from "../../../helpers/media.ts";
import { openTestStore, type TestStore } from "../../../helpers/stores.ts";

let store: TestStore;
let site: MediaSite;
let dir: string;
beforeAll(async () => {
  [store, site] = await Promise.all([openTestStore("pglite"), startMediaSite()]);
  dir = await mkdtemp(path.join(tmpdir(), "platform-access-"));
});
afterAll(async () => {
  await Promise.all([store?.close(), site?.close(), rm(dir, { recursive: true, force: true })]);
});

const netscapeFile = (value: string) =>
  `# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\t${membersCookie.name}\t${value}\n`;

/** Folders of private cookie copies left in `folder`, this test's own (other runs make theirs in TMPDIR). */
async function cookieCopies(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.startsWith("media-api-cookies-"));
}

describe("COOKIES_FILE", () => {
  test("a page and its video that answer only to a cookie download through the operator's file, which stays as it was", async () => {
    const file = path.join(dir, "cookies.txt");
    await writeFile(file, netscapeFile(membersCookie.value), { mode: 0o640 });
    const before = await readFile(file);
    const copies = await mkdtemp(path.join(dir, "copies-"));
    const { get, logLines } = buildTestApp(store.db, {
      env: { EXTRA_PAGE_HOSTS: site.host, COOKIES_FILE: file, PAGE_CACHE_TTL_S: "0" },
      privateCopies: copies,
    });
    const key = await makeKey(store.db, "PRO");
    const url = encodeURIComponent(site.pages.members);

    const post = await get(`/api/v1/post?url=${url}`, key.plain);
    expect(post.status).toBe(200);
    expect((await post.json()).text).toContain("Members clip");

    const download = await get(`/api/v1/download?url=${url}`, key.plain);
    expect(download.status).toBe(200);
    const media = await probeMedia(new Uint8Array(await download.arrayBuffer()));
    expect(media.streams.sort()).toEqual(["aac", "h264"]);
    // ffmpeg, not only yt-dlp, sent the cookie for the video.
    const videoFetches = site.requestLog.filter((r) => r.path === "/members/clip.mp4");
    expect(videoFetches.length).toBeGreaterThan(0);
    expect(videoFetches.every((r) => r.cookie === `${membersCookie.name}=${membersCookie.value}`)).toBe(true);

    expect(Buffer.compare(await readFile(file), before)).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await cookieCopies(copies)).toEqual([]);
    expect(logLines.join("\n")).not.toContain(membersCookie.value);
  });

  test("a changed file is used without a restart; without the cookie the site refuses", async () => {
    const file = path.join(dir, "changing.txt");
    await writeFile(file, netscapeFile("wrong-value"));
    const { get } = buildTestApp(store.db, {
      env: { EXTRA_PAGE_HOSTS: site.host, COOKIES_FILE: file, PAGE_CACHE_TTL_S: "0" },
    });
    const key = await makeKey(store.db, "PRO");
    const url = encodeURIComponent(site.pages.members);

    expect((await get(`/api/v1/post?url=${url}`, key.plain)).status).toBe(502);
    await writeFile(file, netscapeFile(membersCookie.value));
    expect((await get(`/api/v1/post?url=${url}`, key.plain)).status).toBe(200);
  });

  test.each([
    ["NUL bytes", Buffer.from("\u0000\u0000\u0000\u0000 not text at all"), "it holds NUL bytes"],
    [
      "invalid UTF-8",
      Buffer.concat([
        Buffer.from("# Netscape HTTP Cookie File\n.example\tTRUE\t/\tFALSE\t0\tname\tva"),
        Buffer.from([0xff, 0xfe]),
        Buffer.from("lue\n"),
      ]),
      "it is not UTF-8 text",
    ],
  ])(
    "a COOKIES_FILE with %s is a warning naming it, shown in /readyz, and page mode goes on without it",
    async (_, content, fault) => {
      const file = path.join(dir, "corrupt.txt");
      await writeFile(file, content);
      const { get, logLines } = buildTestApp(store.db, {
        env: { EXTRA_PAGE_HOSTS: site.host, COOKIES_FILE: file, PAGE_CACHE_TTL_S: "0" },
      });
      const key = await makeKey(store.db, "PRO");
      const url = encodeURIComponent(site.pages.progressive);

      expect((await get(`/api/v1/post?url=${url}`, key.plain)).status).toBe(200);
      const download = await get(`/api/v1/download?url=${url}`, key.plain);
      expect(download.status).toBe(200);
      expect((await probeMedia(new Uint8Array(await download.arrayBuffer()))).streams.length).toBeGreaterThan(0);
      // Told once, not for every run.
      const warnings = logLines.map((line) => JSON.parse(line)).filter((entry) =>
        entry.level === "warn" && entry.setting === "COOKIES_FILE"
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0].msg).toBe(
        `COOKIES_FILE ${file} is not a Netscape cookie file (${fault}); going on without it`,
      );

      const ready = await (await get("/readyz")).json();
      expect(ready.checks.cookies).toEqual({ ok: true, warning: warnings[0].msg });
      await writeFile(file, netscapeFile(membersCookie.value));
      expect((await (await get("/readyz")).json()).checks.cookies).toEqual({ ok: true });
    },
  );

  test("a run that fails still removes its private copy", async () => {
    const file = path.join(dir, "failing.txt");
    await writeFile(file, netscapeFile(membersCookie.value));
    const copies = await mkdtemp(path.join(dir, "copies-"));
    const { get } = buildTestApp(store.db, {
      env: { EXTRA_PAGE_HOSTS: site.host, COOKIES_FILE: file },
      privateCopies: copies,
    });
    const key = await makeKey(store.db, "PRO");
    expect((await get(`/api/v1/post?url=${encodeURIComponent(site.pages.noMedia)}`, key.plain)).status).toBe(400);
    expect(await cookieCopies(copies)).toEqual([]);
  });

  test("a run killed at its time cap removes its private copy too", async () => {
    const file = path.join(dir, "killed.txt");
    await writeFile(file, netscapeFile(membersCookie.value));
    const copies = await mkdtemp(path.join(dir, "copies-"));
    const files = nodeFilesIn(copies);
    const pages = createPageClient({
      extractor: createCliExtractor(nodeProcesses, { "yt-dlp": "yt-dlp", "gallery-dl": "gallery-dl" }),
      files,
      timeoutMs: 150,
      socketTimeoutSec: 5,
      cacheTtlMs: 0,
      cacheMaxEntries: 1,
      maxItems: 1,
      cookies: wholeFile(cookieFile(files, file, () => {})),
    });
    await expect(pages.info(new URL(site.pages.members))).rejects.toMatchObject({ status: 504 });
    expect(await cookieCopies(copies)).toEqual([]);
  });
});

describe("a platform that refuses this server", () => {
  test("is 502 upstream_blocked saying who can act, logged with the remedy and counted per platform", async () => {
    const { get, logLines } = buildTestApp(store.db, { env: { EXTRA_PAGE_HOSTS: site.host } });
    const key = await makeKey(store.db, "PRO");
    const response = await get(`/api/v1/post?url=${encodeURIComponent(site.pages.rateLimited)}`, key.plain);
    expect(response.status).toBe(502);
    const problem = await response.json();
    expect(problem).toMatchObject({ code: "upstream_blocked" });
    expect(problem.detail).toMatch(/platform refused this server with its rate limit.*operator/);
    expect(logLines.join("\n")).toMatch(
      /upstream_blocked.*HTTP Error 429.*COOKIES_FILE.*OUTBOUND_PROXY.*--update-tools/,
    );
    expect(await (await get("/metrics")).text()).toContain('media_api_upstream_blocked_total{platform="OTHER"} 1');
  });
});

describe("X posts behind a sign-in", () => {
  let x: FakeXUpstream;
  beforeAll(async () => {
    x = await startFakeXUpstream();
  });
  afterAll(() => x?.close());

  const xEnv = () => ({ X_SYNDICATION_URL: x.syndicationUrl, X_GRAPHQL_URL: x.url, X_GRAPHQL_QUERY_ID: "fakeQueryId" });
  const postUrl = encodeURIComponent(`https://x.com/someone/status/${fakeTweetIds.ageRestricted}`);

  test("with x.com cookies in COOKIES_FILE an age-restricted post comes through the operator's account, counted by path", async () => {
    const file = path.join(dir, "x-cookies.txt");
    await writeFile(
      file,
      [
        "# Netscape HTTP Cookie File",
        `#HttpOnly_.x.com\tTRUE\t/\tTRUE\t1900000000\tauth_token\t${xSession.authToken}`,
        `.x.com\tTRUE\t/\tTRUE\t1900000000\tct0\t${xSession.ct0}`,
        "",
      ].join("\n"),
    );
    const { get } = buildTestApp(store.db, { env: { ...xEnv(), COOKIES_FILE: file } });
    const key = await makeKey(store.db, "PRO");
    const tweet = await get(`/api/v1/tweet?url=${postUrl}`, key.plain);
    expect(tweet.status).toBe(200);
    expect((await tweet.json()).videoVariants.length).toBeGreaterThan(0);
    expect((await get(`/api/v1/tweet?url=${encodeURIComponent("https://x.com/jack/status/20")}`, key.plain)).status)
      .toBe(200);
    const metrics = await (await get("/metrics")).text();
    expect(metrics).toContain('media_api_x_source_total{path="cookies"} 1');
    expect(metrics).toContain('media_api_x_source_total{path="syndication"} 1');
  });

  test("without them it stays 404 post_unavailable with X's reason", async () => {
    const { get } = buildTestApp(store.db, { env: xEnv() });
    const key = await makeKey(store.db, "PRO");
    const response = await get(`/api/v1/tweet?url=${postUrl}`, key.plain);
    expect(response.status).toBe(404);
    const problem = await response.json();
    expect(problem.code).toBe("post_unavailable");
    expect(problem.detail).toContain("Age-restricted adult content");
  });
});
