// Transcripts in a job's archive (`transcripts: true`), end to end: the real yt-dlp reads the
// recorded YouTube post with subtitles and the recorded Vimeo post without
// (test/fakes/recorded-youtube.ts), the job completes both, and its archive holds the YouTube
// post's transcript beside records.json, in the format the job asked for, where records.json names
// it; the Vimeo post has none, and records.json says so (the item done all the same). A Bluesky
// video's caption file (test/fakes/bluesky.ts) goes in the archive as well, and so does an X video's captions
// (test/fakes/x-video-host.ts), read by X's reader from its HLS master.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { captionedVideoPost, captionVtt, type FakeBluesky, linkOf, startFakeBluesky } from "../fakes/bluesky.ts";
import { recordedPosts, type RecordedYoutube, startRecordedYoutube, timedtextCues } from "../fakes/recorded-youtube.ts";
import { type FakeXUpstream, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { type FakeXVideoHost, startFakeXVideoHost } from "../fakes/x-video-host.ts";
import { makeKey } from "../helpers/app.ts";
import { completed, type JobService, startJobService } from "../helpers/job-service.ts";
import { scaled } from "../helpers/slowness.ts";

const run = promisify(execFile);

interface ArchivedItem {
  position: number;
  status: string;
  post: { subtitles: { lang: string }[] } | null;
  files: string[];
  transcript?: { file: string; lang: string; auto: boolean } | null;
  transcriptProblem?: { code: string; detail: string };
}

let youtube: RecordedYoutube;
let bluesky: FakeBluesky;
let x: FakeXUpstream;
let xVideoHost: FakeXVideoHost;
let service: JobService;
let key: string;

beforeAll(async () => {
  [youtube, bluesky, x, xVideoHost] = await Promise.all([
    startRecordedYoutube(),
    startFakeBluesky(),
    startFakeXUpstream(),
    startFakeXVideoHost(),
  ]);
  service = await startJobService({
    ...youtube.env,
    BLUESKY_APPVIEW_URL: bluesky.origin,
    BLUESKY_PLC_URL: bluesky.origin,
    X_SYNDICATION_URL: x.syndicationUrl,
    ORIGIN_OVERRIDES: `${youtube.env.ORIGIN_OVERRIDES},${bluesky.originOverrides},${xVideoHost.originOverrides}`,
  });
  key = (await makeKey(service.store.db, "GOLD")).plain;
}, scaled(120_000));
afterAll(async () => {
  await service?.close();
  await Promise.all([youtube?.close(), bluesky?.close(), x?.close(), xVideoHost?.close()]);
});

/** The entries of the archive of a job of `urls` (the two recorded posts) made with `body`, by name, and its records.json. */
async function archiveOf(body: Record<string, unknown>, urls = [recordedPosts.subtitled, recordedPosts.unsubtitled]) {
  const { app } = service;
  const created = await app.post("/api/v1/jobs", key, { urls, ...body });
  expect(created.status).toBe(202);
  const job = await service.jobWhen<
    { id: string; status: string; request: Record<string, unknown>; items: { status: string }[] }
  >(
    key,
    created.headers.get("location")!,
    completed,
    scaled(60_000),
  );
  expect(job.items.map((item) => item.status)).toEqual(urls.map(() => "done"));
  const answer = await app.get(`/api/v1/jobs/${job.id}/archive`, key);
  expect(answer.status).toBe(200);
  const zip = path.join(service.scratch, `${job.id}.zip`);
  writeFileSync(zip, new Uint8Array(await answer.arrayBuffer()));
  expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
  const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
  const entry = async (name: string) => (await run("unzip", ["-p", zip, name])).stdout;
  const records = JSON.parse(await entry("records.json")) as { items: ArchivedItem[] };
  return { job, names, entry, items: records.items };
}

describe("a job's transcripts", () => {
  test(
    "WebVTT by default, beside the item's file's name; a post without subtitles has none, and records.json says so",
    {
      timeout: scaled(120_000),
    },
    async () => {
      const { job, names, entry, items } = await archiveOf({ transcripts: true, transcriptLang: "en" });
      expect(job.request).toMatchObject({ transcripts: true, transcriptLang: "en", transcriptFormat: "vtt" });
      expect(names).toEqual(["0001-youtube_hwMkbaS_M_c.en.vtt", "records.json"]);
      const [first, second] = timedtextCues("en");
      expect(await entry(names[0]!)).toBe(
        `WEBVTT\n\n00:00:01.200 --> 00:00:03.900\n${first}\n\n00:00:06.000 --> 00:00:07.250\n${second}\n`,
      );

      const [subtitled, unsubtitled] = items;
      expect(subtitled!.transcript).toEqual({ file: names[0], lang: "en", auto: false });
      expect(subtitled!.transcriptProblem).toBeUndefined();
      // The post's record names every language it has.
      expect(subtitled!.post!.subtitles.map((each) => each.lang)).toContain("en");
      expect(subtitled!.post!.subtitles.length).toBeGreaterThan(1);

      expect(unsubtitled!.status).toBe("done");
      expect(unsubtitled!.post!.subtitles).toEqual([]);
      expect(unsubtitled!.transcript).toBeNull();
      expect(unsubtitled!.transcriptProblem).toMatchObject({ code: "no_transcript" });
      expect(unsubtitled!.transcriptProblem!.detail).toMatch(/no subtitles or automatic captions/);
      expect(youtube.trackRequests).toContain("en");
    },
  );

  test("the format the job asks for: json, text, srt; a language the post lacks names those it has", {
    timeout: scaled(180_000),
  }, async () => {
    const [first, second] = timedtextCues("fr");
    const json = await archiveOf({ transcripts: true, transcriptLang: "fr", transcriptFormat: "json" });
    expect(json.names[0]).toBe("0001-youtube_hwMkbaS_M_c.fr.json");
    expect(JSON.parse(await json.entry(json.names[0]!))).toEqual({
      lang: "fr",
      auto: false,
      cues: [{ start: 1.2, end: 3.9, text: first }, { start: 6, end: 7.25, text: second }],
    });

    const text = await archiveOf({ transcripts: true, transcriptLang: "fr", transcriptFormat: "text" });
    expect(text.names[0]).toBe("0001-youtube_hwMkbaS_M_c.fr.txt");
    expect(await text.entry(text.names[0]!)).toBe(`${first}\n\n${second}\n`);

    const srt = await archiveOf({ transcripts: true, transcriptLang: "fr", transcriptFormat: "srt" });
    expect(srt.names[0]).toBe("0001-youtube_hwMkbaS_M_c.fr.srt");
    expect(await srt.entry(srt.names[0]!)).toBe(
      `1\n00:00:01,200 --> 00:00:03,900\n${first}\n\n2\n00:00:06,000 --> 00:00:07,250\n${second}\n`,
    );

    const lacking = await archiveOf({ transcripts: true, transcriptLang: "xx" });
    expect(lacking.names).toEqual(["records.json"]);
    expect(lacking.items[0]!.transcriptProblem).toMatchObject({ code: "invalid_parameter" });
    expect(lacking.items[0]!.transcriptProblem!.detail).toMatch(/no subtitles in "xx"; it has: cs, da/);
  });

  test(
    "without `transcripts`, no transcript and records.json says nothing of them",
    { timeout: scaled(120_000) },
    async () => {
      const { names, items } = await archiveOf({});
      expect(names).toEqual(["records.json"]);
      expect(items.every((item) => !("transcript" in item) && !("transcriptProblem" in item))).toBe(true);
    },
  );

  test("a Bluesky video's caption file beside its file, read by Bluesky's reader from the author's PDS", {
    timeout: scaled(120_000),
  }, async () => {
    const { names, entry, items } = await archiveOf({ transcripts: true, threads: false, files: true }, [
      linkOf(captionedVideoPost),
    ]);
    // Beside the item's file, named as it is.
    expect(names).toEqual(["0001-bluesky_3lcaptioned2c.mp4", "0001-bluesky_3lcaptioned2c.en.vtt", "records.json"]);
    expect(await entry(names[1]!)).toBe(captionVtt);
    expect(items[0]!.files).toEqual([names[0]]);
    expect(items[0]!.transcript).toEqual({ file: names[1], lang: "en", auto: false });
    expect(bluesky.calls.some((call) => call.startsWith("com.atproto.sync.getBlob?"))).toBe(true);
  });

  test("an X video's captions, read by X's reader from the subtitle stream of its HLS master", {
    timeout: scaled(120_000),
  }, async () => {
    const { names, entry, items } = await archiveOf({ transcripts: true, threads: false, files: false }, [
      "https://x.com/NASA/status/1491475671058681863",
    ]);
    expect(names).toEqual(["0001-x_1491475671058681863.en.vtt", "records.json"]);
    const vtt = await entry(names[0]!);
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:03\.000\n\(Captions are auto-generated\)\n/);
    expect(vtt).toContain("00:00:57.500 --> 00:01:01.200\nvisible light images\n");
    expect(items[0]!.transcript).toEqual({ file: names[0], lang: "en", auto: true });
    expect(xVideoHost.calls("/subtitles/amplify_video/1491441845964001288/")).toBeGreaterThanOrEqual(3);
  });
});
