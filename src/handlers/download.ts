// GET /api/v1/download?url=: the `download` verb's plan (operations/download.ts), carried out by
// the runner (media/run-plan.ts) with the slot its kind costs. `audio=mp3` turns any plan into MP3
// with ffmpeg, `audio=m4a` into its AAC sound, `mute=true` into its video alone.
import type { ApiHandler } from "../auth/api-context.ts";
import { DownloadQuery, parseQuery } from "../http/query.ts";
import { clipRangeOf } from "../http/clip-range.ts";
import { ApiError } from "../http/problem.ts";
import { slotHolder } from "../limits/slots.ts";
import { runPlan } from "../media/run-plan.ts";
import type { Wanted } from "../platforms/source.ts";
import { type DownloadDeps, planOf } from "../operations/download.ts";

export function downloadHandler(deps: DownloadDeps): ApiHandler {
  return async (ctx) => {
    const { url, wanted } = readQuery(ctx.url);
    const holder = slotHolder(ctx);
    const plan = await planOf(url, wanted, { signal: ctx.request.signal, holder }, deps);
    return runPlan(plan, wanted, {
      request: ctx.request,
      whenDone: ctx.whenDone,
      clientProgress: ctx.clientProgress,
      holder,
    }, deps.runner);
  };
}

/**
 * The link and what the query asks of it; `subtitles` or `mute` with `audio` is 400 (sound alone
 * holds no track, and is no video), and so is `end` not after `start`, or `cut` without either.
 */
function readQuery(url: URL): { url: URL; wanted: Wanted } {
  const query = parseQuery(DownloadQuery, url.searchParams);
  const wanted: Wanted = {
    output: query.audio ?? "mp4",
    format: query.format || null,
    filename: query.filename ?? null,
    index: query.index ?? null,
    subtitles: query.subtitles ?? null,
    clip: clipRangeOf(query.start, query.end, query.cut === "exact"),
    mute: query.mute === "true",
  };
  if (query.cut !== undefined && wanted.clip === null) {
    throw new ApiError(
      "invalid_parameter",
      "`cut` says how a clip is cut; give `start` or `end` with it, or leave it out.",
    );
  }
  if (wanted.subtitles !== null && wanted.output !== "mp4") {
    throw new ApiError(
      "invalid_parameter",
      `\`subtitles\` embeds a track into MP4; sound alone (\`audio=${wanted.output}\`) cannot hold one. Leave one of them out.`,
    );
  }
  if (wanted.mute && wanted.output !== "mp4") {
    throw new ApiError(
      "invalid_parameter",
      `\`mute\` leaves the sound out of a video; \`audio=${wanted.output}\` asks for the sound alone. Leave one of them out.`,
    );
  }
  return { url: query.url, wanted };
}
