// The in-process format selection against yt-dlp's own choice on the recorded descriptions.
// The table is what `yt-dlp -J -f <selector> --load-info-json <file>` chose (yt-dlp 2026.10.26;
// null: "Requested format is not available"); the last test asks the installed yt-dlp again.
// yt-dlp sorts formats (worst first) whenever it reads a description, and an older recording may
// be in another order, so the formats are taken as the installed yt-dlp gives them back, as the
// service has them from its own `yt-dlp -J`.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, test } from "vitest";
import { parseFormatSelector, selectFormats } from "../../../../src/platforms/tools/ytdlp/format-selector.ts";
import { entryFormats, mainEntry, type YtdlpFormat, YtdlpInfo } from "../../../../src/platforms/tools/ytdlp/info.ts";
import { audioSelector, defaultVideoSelector } from "../../../../src/platforms/tools/ytdlp/selection.ts";
import { scaled } from "../../../helpers/slowness.ts";

const run = promisify(execFile);
const fixtureFile = (name: string) => path.resolve("test/fixtures/upstream/ytdlp", `${name}.info.json`);
const described = new Map<string, YtdlpFormat[]>();
const formatsOf = (name: string) => described.get(name)!;
const ytdlpJson = async (file: string, selector?: string) =>
  JSON.parse(
    (await run("yt-dlp", [
      "-J",
      "--ignore-config",
      "--no-warnings",
      ...(selector ? ["-f", selector] : []),
      "--load-info-json",
      file,
    ], { maxBuffer: 64e6 })).stdout,
  ) as unknown;

beforeAll(async () => {
  const names = readdirSync("test/fixtures/upstream/ytdlp").filter((file) => file.endsWith(".info.json")).map((file) =>
    file.replace(/\.info\.json$/, "")
  );
  await Promise.all(
    names.map(async (name) =>
      described.set(name, entryFormats(mainEntry(YtdlpInfo.parse(await ytdlpJson(fixtureFile(name))))))
    ),
  );
}, scaled(120_000));

/** The chosen format ids joined with "+", as yt-dlp names a merge; null when nothing matches. */
function choose(name: string, selector: string): string | null {
  const parsed = parseFormatSelector(selector);
  if (parsed === null) throw new Error(`${selector} does not parse`);
  try {
    return selectFormats(parsed, formatsOf(name)).map((f) => f.format_id).join("+");
  } catch (error) {
    if ((error as { code?: string }).code === "format_not_available") return null;
    throw error;
  }
}

const yt = [
  [
    "twitter_nasa_1491475671058681863",
    "bv*[ext=mp4][protocol!*=dash]+ba[ext=m4a][protocol!*=dash]/b[ext=mp4][protocol!*=dash]/bv*[protocol!*=dash]+ba[protocol!*=dash]/b[protocol!*=dash]/bv*+ba/b",
    "http-2176",
  ],
  ["twitter_nasa_1491475671058681863", "bv*+ba/b", "hls-698+hls-audio-128000-Audio"],
  ["twitter_nasa_1491475671058681863", "ba[protocol!*=dash]/b[protocol!*=dash]/ba/b", "hls-audio-128000-Audio"],
  ["twitter_nasa_1491475671058681863", "b", "http-2176"],
  ["twitter_nasa_1491475671058681863", "bestvideo[height<=480]+bestaudio", "hls-257+hls-audio-128000-Audio"],
  ["twitter_nasa_1491475671058681863", "best[height<=720]", "http-2176"],
  ["twitter_nasa_1491475671058681863", "bv+ba", "hls-698+hls-audio-128000-Audio"],
  ["twitter_nasa_1491475671058681863", "w", "http-288"],
  ["twitter_nasa_1491475671058681863", "wv*+wa", "http-288"],
  ["twitter_nasa_1491475671058681863", "b[ext=mp4]", "http-2176"],
  ["twitter_nasa_1491475671058681863", "ba", "hls-audio-128000-Audio"],
  ["twitter_nasa_1491475671058681863", "mp4", "http-2176"],
  ["twitter_nasa_1491475671058681863", "bv*[height<=360]+ba/b[height<=360]", "hls-257+hls-audio-128000-Audio"],
  ["twitter_nasa_1491475671058681863", "best[height<=?720]", "http-2176"],
  ["twitter_nasa_1491475671058681863", "[height<=480]", "http-832"],
  ["twitter_nasa_1491475671058681863", "bv*[vcodec^=avc1]+ba[acodec!=opus]", null],
  ["twitter_nasa_1491475671058681863", "worst[ext!=mp4]", null],
  ["twitter_nasa_1491475671058681863", "b.2", "http-832"],
  ["twitter_nasa_1491475671058681863", "hls-audio-32000-Audio", "hls-audio-32000-Audio"],
  ["twitter_nasa_1491475671058681863", "hls-698", "hls-698"],
  [
    "twitter_verge_957383241714970624",
    "bv*[ext=mp4][protocol!*=dash]+ba[ext=m4a][protocol!*=dash]/b[ext=mp4][protocol!*=dash]/bv*[protocol!*=dash]+ba[protocol!*=dash]/b[protocol!*=dash]/bv*+ba/b",
    "http-1280",
  ],
  ["twitter_verge_957383241714970624", "b", "http-1280"],
  ["twitter_verge_957383241714970624", "ba[protocol!*=dash]/b[protocol!*=dash]/ba/b", "http-1280"],
  ["twitter_verge_957383241714970624", "bv*+ba/b", "http-1280"],
  ["twitter_verge_957383241714970624", "best[height<=720]", "http-1280"],
  ["twitter_verge_957383241714970624", "bestvideo[height<=480]+bestaudio", null],
  ["twitter_verge_957383241714970624", "bv+ba", null],
  ["twitter_verge_957383241714970624", "ba", null],
  ["twitter_verge_957383241714970624", "wv*+wa", null],
  ["twitter_verge_957383241714970624", "w", "hls-320"],
  ["twitter_verge_957383241714970624", "b[ext=mp4]", "http-1280"],
  ["twitter_verge_957383241714970624", "mp4", "http-1280"],
  ["twitter_verge_957383241714970624", "bv*[height<=360]+ba/b[height<=360]", "http-320"],
  ["twitter_verge_957383241714970624", "best[height<=?720]", "http-1280"],
  ["twitter_verge_957383241714970624", "[height<=480]", "http-832"],
  ["twitter_verge_957383241714970624", "b.2", "hls-1280"],
  ["twitter_verge_957383241714970624", "bv*[vcodec^=avc1]+ba[acodec!=opus]", null],
  ["twitter_verge_957383241714970624", "worst[ext!=mp4]", null],
  ["twitter_verge_957383241714970624", "hls-320", "hls-320"],
  ["twitter_verge_957383241714970624", "http-1280", "http-1280"],
  [
    "vimeo_443437002",
    "bv*[ext=mp4][protocol!*=dash]+ba[ext=m4a][protocol!*=dash]/b[ext=mp4][protocol!*=dash]/bv*[protocol!*=dash]+ba[protocol!*=dash]/b[protocol!*=dash]/bv*+ba/b",
    "source",
  ],
  ["vimeo_443437002", "ba[protocol!*=dash]/b[protocol!*=dash]/ba/b", "hls-fastly_skyfire_sep-audio-medium-audio"],
  ["vimeo_443437002", "bv*+ba/b", "source"],
  ["vimeo_443437002", "best[height<=720]", "hls-fastly_skyfire-2568"],
  ["vimeo_443437002", "b", "source"],
  [
    "vimeo_443437002",
    "bestvideo[height<=480]+bestaudio",
    "hls-fastly_skyfire_sep-545+dash-fastly_skyfire_sep-audio-5a0c368c",
  ],
  ["vimeo_443437002", "w", "dash-akfire_interconnect_quic-video-adc1e8a8"],
  ["vimeo_443437002", "bv+ba", "hls-fastly_skyfire_sep-4093+dash-fastly_skyfire_sep-audio-5a0c368c"],
  [
    "vimeo_443437002",
    "wv*+wa",
    "dash-akfire_interconnect_quic_sep-video-adc1e8a8+hls-akfire_interconnect_quic_sep-audio-high-audio",
  ],
  ["vimeo_443437002", "ba", "dash-fastly_skyfire_sep-audio-5a0c368c"],
  ["vimeo_443437002", "b[ext=mp4]", "source"],
  ["vimeo_443437002", "mp4", "source"],
  ["vimeo_443437002", "bv*[height<=360]+ba/b[height<=360]", "hls-fastly_skyfire-546"],
  ["vimeo_443437002", "best[height<=?720]", "hls-fastly_skyfire-2568"],
  ["vimeo_443437002", "[height<=480]", "hls-fastly_skyfire-546"],
  ["vimeo_443437002", "b.2", "hls-fastly_skyfire-4094"],
  ["vimeo_443437002", "bv*[vcodec^=avc1]+ba[acodec!=opus]", "hls-fastly_skyfire-5039"],
  ["vimeo_443437002", "worst[ext!=mp4]", null],
  [
    "vimeo_443437002",
    "hls-akfire_interconnect_quic_sep-audio-high-audio",
    "hls-akfire_interconnect_quic_sep-audio-high-audio",
  ],
  ["vimeo_443437002", "source", "source"],
  ["youtube_JjQDik3yNhA_2023-06-29", "248", "248"],
  [
    "youtube_JjQDik3yNhA_2023-06-29",
    "bv*[ext=mp4][protocol!*=dash]+ba[ext=m4a][protocol!*=dash]/b[ext=mp4][protocol!*=dash]/bv*[protocol!*=dash]+ba[protocol!*=dash]/b[protocol!*=dash]/bv*+ba/b",
    "614+140",
  ],
  ["youtube_JjQDik3yNhA_2023-06-29", "bv*+ba/b", "248+251"],
  ["youtube_JjQDik3yNhA_2023-06-29", "ba[protocol!*=dash]/b[protocol!*=dash]/ba/b", "251"],
  ["youtube_JjQDik3yNhA_2023-06-29", "b", "22"],
  ["youtube_JjQDik3yNhA_2023-06-29", "best[height<=720]", "22"],
  ["youtube_JjQDik3yNhA_2023-06-29", "bestvideo[height<=480]+bestaudio", "244+251"],
  ["youtube_JjQDik3yNhA_2023-06-29", "bv+ba", "248+251"],
  ["youtube_JjQDik3yNhA_2023-06-29", "w", "17"],
  ["youtube_JjQDik3yNhA_2023-06-29", "wv*+wa", "17"],
  ["youtube_JjQDik3yNhA_2023-06-29", "ba", "251"],
  ["youtube_JjQDik3yNhA_2023-06-29", "b[ext=mp4]", "22"],
  ["youtube_JjQDik3yNhA_2023-06-29", "mp4", "22"],
  ["youtube_JjQDik3yNhA_2023-06-29", "bv*[height<=360]+ba/b[height<=360]", "243+251"],
  ["youtube_JjQDik3yNhA_2023-06-29", "best[height<=?720]", "22"],
  ["youtube_JjQDik3yNhA_2023-06-29", "[height<=480]", "18"],
  ["youtube_JjQDik3yNhA_2023-06-29", "b.2", "18"],
  ["youtube_JjQDik3yNhA_2023-06-29", "bv*[vcodec^=avc1]+ba[acodec!=opus]", "137+140"],
  ["youtube_JjQDik3yNhA_2023-06-29", "worst[ext!=mp4]", "17"],
  ["youtube_JjQDik3yNhA_2023-06-29", "sb2", "sb2"],
  ["youtube_hwMkbaS_M_c", "248", "248"],
  [
    "youtube_hwMkbaS_M_c",
    "bv*[ext=mp4][protocol!*=dash]+ba[ext=m4a][protocol!*=dash]/b[ext=mp4][protocol!*=dash]/bv*[protocol!*=dash]+ba[protocol!*=dash]/b[protocol!*=dash]/bv*+ba/b",
    "614+140",
  ],
  ["youtube_hwMkbaS_M_c", "ba[protocol!*=dash]/b[protocol!*=dash]/ba/b", "251"],
  ["youtube_hwMkbaS_M_c", "bv*+ba/b", "248+251"],
  ["youtube_hwMkbaS_M_c", "b", "22"],
  ["youtube_hwMkbaS_M_c", "best[height<=720]", "22"],
  ["youtube_hwMkbaS_M_c", "bestvideo[height<=480]+bestaudio", "244+251"],
  ["youtube_hwMkbaS_M_c", "bv+ba", "248+251"],
  ["youtube_hwMkbaS_M_c", "w", "17"],
  ["youtube_hwMkbaS_M_c", "wv*+wa", "17"],
  ["youtube_hwMkbaS_M_c", "ba", "251"],
  ["youtube_hwMkbaS_M_c", "b[ext=mp4]", "22"],
  ["youtube_hwMkbaS_M_c", "bv*[height<=360]+ba/b[height<=360]", "243+251"],
  ["youtube_hwMkbaS_M_c", "mp4", "22"],
  ["youtube_hwMkbaS_M_c", "best[height<=?720]", "22"],
  ["youtube_hwMkbaS_M_c", "b.2", "18"],
  ["youtube_hwMkbaS_M_c", "[height<=480]", "18"],
  ["youtube_hwMkbaS_M_c", "bv*[vcodec^=avc1]+ba[acodec!=opus]", "137+140"],
  ["youtube_hwMkbaS_M_c", "sb2", "sb2"],
  ["youtube_hwMkbaS_M_c", "worst[ext!=mp4]", "17"],
] as const;

describe("selectFormats()", () => {
  test.each(yt)("%s: %s picks what yt-dlp picks", (name, selector, expected) => {
    expect(choose(name, selector)).toBe(expected);
  });

  test("the service's own selectors are among those compared", () => {
    expect(yt.filter(([, selector]) => selector === defaultVideoSelector)).toHaveLength(5);
    expect(yt.filter(([, selector]) => selector === audioSelector)).toHaveLength(5);
  });

  test("nothing matching is 400 format_not_available", () => {
    expect(() => selectFormats(parseFormatSelector("ba")!, formatsOf("twitter_verge_957383241714970624"))).toThrow(
      expect.objectContaining({ status: 400, code: "format_not_available" }),
    );
  });

  test("the installed yt-dlp agrees on a few selectors now", async () => {
    const name = "youtube_hwMkbaS_M_c";
    for (const selector of ["bv*+ba/b", "best[height<=480]", "bestvideo[height<=480]+bestaudio"]) {
      const chosen = (await ytdlpJson(fixtureFile(name), selector)) as { format_id: string };
      expect(choose(name, selector)).toBe(chosen.format_id);
    }
  });
});

describe("parseFormatSelector()", () => {
  test("what it does not know is null, so yt-dlp selects instead", () => {
    for (
      const selector of [
        "(bv*+ba/b)[height<=720]",
        "bv,ba",
        "all",
        "mergeall",
        "b[filesize<50M]",
        "b[height!<720]",
        "b[height",
      ]
    ) {
      expect(parseFormatSelector(selector)).toBeNull();
    }
  });
});
