// A TikTok photo slideshow as a user meets it, by each shape of link that reaches it: its `/photo/` link (gallery-dl
// alone), its `/video/` link (TikTok's share links say /video/ for slideshows too: yt-dlp reads its music alone,
// gallery-dl its pictures and music), a mirror's `/video/` link, the app's share host's `/share/video/` link and its
// short link. Every item's download, by `index` and by its signed link, sends that item's own file; so do cobalt's
// picker and a job's archive. The real yt-dlp (trusting the fake's authority) and gallery-dl read the local TikTok of
// test/fakes/photo-platforms.ts.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type PhotoPlatforms, photoPosts, startPhotoPlatforms } from "../../fakes/photo-platforms.ts";
import { type ShortLinkHost, startShortLinkHost } from "../../fakes/short-links.ts";
import { cobaltDoorOver } from "../../helpers/cobalt-door.ts";
import { makeKey, type TestApp } from "../../helpers/app.ts";
import { completed, type JobService, startJobService } from "../../helpers/job-service.ts";
import { probeMedia } from "../../helpers/media.ts";
import { scaled } from "../../helpers/slowness.ts";

const run = promisify(execFile);

const id = "7436185392745209118";
const links = {
  photo: photoPosts.tiktokSlideshow,
  video: photoPosts.tiktokSlideshow.replace("/photo/", "/video/"),
  mirror: `https://vxtiktok.com/@breadlab/video/${id}`,
  share: `https://www.tiktokv.com/share/video/${id}`,
  short: "https://vm.tiktok.com/ZMslides1/",
};
let platforms: PhotoPlatforms;
let shortLinks: ShortLinkHost;
let service: JobService;
let app: TestApp;
let key: string;
beforeAll(async () => {
  // The fakes first: the job service takes TMPDIR for its own.
  [platforms, shortLinks] = await Promise.all([startPhotoPlatforms(), startShortLinkHost()]);
  // The app's share link of the slideshow, as TikTok answers it: a redirect to its `/video/` page.
  shortLinks.answer("/ZMslides1/", 301, `${links.video}?_r=1`);
  service = await startJobService({
    ORIGIN_OVERRIDES: `${platforms.originOverrides},vm.tiktok.com=${shortLinks.origin}`,
    GALLERY_DL_CA_FILE: platforms.caFile,
    YTDLP_PATH: platforms.ytdlpPath,
  });
  app = service.app;
  key = (await makeKey(service.store.db, "GOLD")).plain;
}, scaled(120_000));
afterAll(async () => {
  await service?.close();
  await Promise.all([platforms?.close(), shortLinks?.close()]);
});

const extensions = { photo: "jpg", sound: "mp3", video: "mp4" } as const;

const post = (link: string) => app.get(`/api/v1/post?url=${encodeURIComponent(link)}`, key);
const download = (link: string, query: string) =>
  app.get(`/api/v1/download?url=${encodeURIComponent(link)}${query}`, key);
const bodyOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
/** The bytes of the slideshow's file `at` (0-based: its pictures, then its music) as TikTok's CDN serves it. */
const fileBytes = async (at: number) => Buffer.from(await platforms.bytes(platforms.files.tiktokSlideshow[at]!.url));

describe.each(Object.entries(links))("the slideshow by its %s link", (_shape, link) => {
  test("post lists every picture and the music; each item's signed link and index=N send that item's own file", {
    timeout: scaled(120_000),
  }, async () => {
    const files = platforms.files.tiktokSlideshow;
    const response = await post(link);
    expect(response.status).toBe(200);
    const record = await response.json();
    expect(record.media.map((item: { url: string }) => item.url)).toEqual(files.map((file) => file.url));

    for (const [at, item] of (record.media as { downloadUrl: string }[]).entries()) {
      const name = `tiktok_${id}_${at + 1}.${extensions[files[at]!.kind]}`;
      const signed = new URL(item.downloadUrl);
      for (const answer of [await app.get(signed.pathname + signed.search), await download(link, `&index=${at + 1}`)]) {
        expect([at + 1, answer.status]).toEqual([at + 1, 200]);
        expect(answer.headers.get("content-disposition")).toContain(`filename="${name}"`);
        expect(Buffer.compare(await bodyOf(answer), await fileBytes(at))).toBe(0);
      }
    }
  });
});

describe("the slideshow by its /video/ link, as sound", () => {
  // Without `index`, `audio=mp3` is yt-dlp's music (test/platforms/tools/post-source.test.ts): ffmpeg would fetch it
  // from the fake's CDN, which answers plain HTTP for TikTok's HTTPS host, so it is not tried here.
  test(
    "audio=mp3 of index=5 is our MP3 of the music; of a picture's index, 400",
    { timeout: scaled(120_000) },
    async () => {
      const sound = await download(links.video, "&index=5&audio=mp3");
      expect(sound.status).toBe(200);
      expect(sound.headers.get("content-type")).toBe("audio/mpeg");
      const probed = await probeMedia(new Uint8Array(await sound.arrayBuffer()));
      expect(probed.streams).toEqual(["mp3"]);
      expect(probed.duration).toBeCloseTo(24, 0);

      const picture = await download(links.video, "&index=2&audio=mp3");
      expect(picture.status).toBe(400);
      expect((await picture.json()).detail).toContain("This item is a photo");
    },
  );
});

describe("cobalt's picker of the /video/ link", () => {
  test(
    "each entry's tunnel sends its own picture, the audio tunnel the music",
    { timeout: scaled(120_000) },
    async () => {
      const door = cobaltDoorOver(app, service.store.db);
      const { status, answer } = await door.ask(key, links.video);
      expect(status).toBe(200);
      expect(answer.status).toBe("picker");
      expect(answer.picker).toHaveLength(4);
      for (const [at, entry] of (answer.picker as { type: string; url: string }[]).entries()) {
        expect(entry.type).toBe("photo");
        const tunnel = await door.open(entry.url);
        expect([at + 1, tunnel.status]).toEqual([at + 1, 200]);
        expect(Buffer.compare(await bodyOf(tunnel), await fileBytes(at))).toBe(0);
      }
      const sound = await door.open(answer.audio);
      expect(sound.status).toBe(200);
      expect((await probeMedia(new Uint8Array(await sound.arrayBuffer()))).streams).toEqual(["mp3"]);
    },
  );
});

describe("a job of the /video/ link", () => {
  test("completes, and its archive holds each picture once, in order, then the music, each its own file", {
    timeout: scaled(240_000),
  }, async () => {
    const created = await app.post("/api/v1/jobs", key, { urls: [links.video], files: true });
    expect(created.status).toBe(202);
    const job = await service.jobWhen<{ status: string; archiveUrl: string | null }>(
      key,
      created.headers.get("location")!,
      (job) => completed(job) || job.status === "failed",
      scaled(120_000),
    );
    expect(job.status).toBe("completed");
    const answer = await app.app.fetch(new Request(job.archiveUrl!));
    expect(answer.status).toBe(200);
    const zip = path.join(service.scratch, "slideshow.zip");
    writeFileSync(zip, await bodyOf(answer));
    const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
    const files = platforms.files.tiktokSlideshow;
    expect(names).toEqual([
      ...files.map((file, at) => `0001-tiktok_${id}_${at + 1}.${extensions[file.kind]}`),
      "records.json",
    ]);
    for (const [at, name] of names.slice(0, -1).entries()) {
      const entry = (await run("unzip", ["-p", zip, name], { encoding: "buffer", maxBuffer: 16 * 2 ** 20 })).stdout;
      expect([name, Buffer.compare(entry, await fileBytes(at))]).toEqual([name, 0]);
    }
  });
});
