// The real yt-dlp reading recorded descriptions (test/fixtures/upstream/ytdlp, PROVENANCE.md there)
// in place of the platforms: `ytdlpPath` is a wrapper of the installed yt-dlp that hands it the
// recording of the link it is asked about (`--load-info-json`, so yt-dlp processes the description
// as it would one it had just extracted), and YouTube's timedtext host is a local server answering
// each track of the recording with WebVTT as YouTube writes it (built; see PROVENANCE.md).
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fixturesDir } from "./x-upstream.ts";

/** The recorded posts the wrapper answers for, by the link the service asks about. */
export const recordedPosts = {
  /** YouTube, with its own subtitles in 26 languages (`en` among them) and automatic captions. */
  subtitled: "https://www.youtube.com/watch?v=hwMkbaS_M_c",
  /** Vimeo, with neither. */
  unsubtitled: "https://vimeo.com/443437002",
};

const recordings: Record<string, string> = {
  hwMkbaS_M_c: "youtube_hwMkbaS_M_c.info.json",
  "vimeo.com/443437002": "vimeo_443437002.info.json",
};

/** The cues every track of the timedtext host holds, in its language's tag. */
export const timedtextCues = (lang: string) => [`[${lang}] Every generation has a legend`, `[${lang}] It's time`];

/** A track of a video's own subtitles as YouTube's timedtext answers `fmt=vtt`: a header naming its kind and language, then the cues. */
const timedtextVtt = (lang: string) => {
  const [first, second] = timedtextCues(lang);
  return `WEBVTT\nKind: captions\nLanguage: ${lang}\n\n00:00:01.200 --> 00:00:03.900\n${first}\n\n00:00:06.000 --> 00:00:07.250\n${second}\n\n`;
};

export interface RecordedYoutube {
  /** YTDLP_PATH and ORIGIN_OVERRIDES for the app. */
  env: { YTDLP_PATH: string; ORIGIN_OVERRIDES: string };
  /** The timedtext requests, as `lang` query values. */
  trackRequests: string[];
  close(): Promise<void>;
}

export async function startRecordedYoutube(): Promise<RecordedYoutube> {
  const trackRequests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://www.youtube.com");
    const lang = url.searchParams.get("lang");
    if (url.pathname !== "/api/timedtext" || url.searchParams.get("v") !== "hwMkbaS_M_c" || lang === null) {
      res.writeHead(404);
      return void res.end();
    }
    trackRequests.push(lang);
    res.writeHead(200, { "content-type": "text/vtt; charset=utf-8" });
    res.end(timedtextVtt(lang));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = await mkdtemp(path.join(tmpdir(), "recorded-ytdlp-"));
  const wrapper = path.join(dir, "yt-dlp");
  const cases = Object.entries(recordings)
    .map(([pattern, file]) => `    *${pattern}*) recording='${path.join(fixturesDir, "ytdlp", file)}' ;;`)
    .join("\n");
  // The service's own `--load-info-json` (a kept description) goes to yt-dlp as it is.
  await writeFile(
    wrapper,
    `#!/bin/sh\nrecording=\ncase " $* " in *" --load-info-json "*) exec yt-dlp "$@" ;; esac\nfor arg; do\n  case "$arg" in\n${cases}\n  esac\ndone\n[ -n "$recording" ] && exec yt-dlp --load-info-json "$recording" "$@"\nexec yt-dlp "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  return {
    env: {
      YTDLP_PATH: wrapper,
      ORIGIN_OVERRIDES: `www.youtube.com=http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    },
    trackRequests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
