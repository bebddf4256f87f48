// The files of a job's archive, each got the way `download` gets it: the item's plan from its
// source (operations/download.ts `planOf`: the source's tools checked, an extraction slot held while it
// plans), carried out by the runner (media/run-plan.ts: a relay or ffmpeg's remux, with the slot its
// kind costs until its body ends, cut when the client stops taking the archive). One file is
// fetched at a time, when the archive reaches it. Where the key's other downloads or extractions
// hold every slot it needs, the archive waits its turn rather than break: it has begun.
import type { ApiContext } from "../auth/api-context.ts";
import { type DownloadDeps, planOf } from "../operations/download.ts";
import { ApiError } from "../http/problem.ts";
import { slotHolder } from "../limits/slots.ts";
import { filenameOf } from "../media/filename.ts";
import { runPlan } from "../media/run-plan.ts";
import type { Wanted } from "../platforms/source.ts";
import { type TranscriptDeps, transcriptFormats, transcriptOf } from "../operations/transcript.ts";
import { itemName } from "../platforms/items.ts";
import type { FileWanted, ItemFile, ItemTranscript } from "./archive.ts";
import { whenSlotFrees } from "./waits.ts";
import type { JobItem, JobRequest } from "./job.ts";
import type { PostRecord } from "../platforms/records.ts";

/** What of a job's request its files follow. */
export type JobRequestFiles = Pick<JobRequest, "files" | "format" | "output" | "clip">;

/** How the archive of `ctx`'s request gets each file, with the job's format and output. */
export function itemFiles(
  deps: DownloadDeps,
  ctx: ApiContext,
  request: JobRequest,
): (wanted: FileWanted) => Promise<ItemFile> {
  // Each file is asked for whole: a Range the archive's request may carry is about the archive.
  const whole = new Request(ctx.url, { method: "GET", signal: ctx.request.signal });
  const caller = {
    request: whole,
    whenDone: ctx.whenDone,
    clientProgress: ctx.clientProgress,
    holder: slotHolder(ctx),
  };
  return async ({ item, index }) => {
    const wanted = wantedOf(item.post, index, request);
    const { response } = await whenSlotFrees(
      async () =>
        runPlan(
          await planOf(new URL(item.url), wanted, { signal: ctx.request.signal, holder: caller.holder }, deps),
          wanted,
          caller,
          deps.runner,
        ),
      ["too_many_downloads", "too_many_extractions"],
      ctx.request.signal,
    );
    const name = filenameOf(response.headers.get("content-disposition"));
    if (response.body === null || name === null) {
      await response.body?.cancel();
      throw new ApiError("internal_error", `The file of item ${item.position} came without a body or a name.`);
    }
    return { name, body: response.body };
  };
}

/** The extension of a transcript's entry, by its format. */
const transcriptExts = { json: "json", text: "txt", srt: "srt", vtt: "vtt" } as const;

/**
 * How the archive of `ctx`'s request gets a done item's transcript, as `transcript` gets it (an
 * extraction slot while the post is read, waited for as the files wait), named after the item's
 * file: `<platform>_<id>.<lang>.<ext>`. Undefined when the job asked for none.
 */
export function itemTranscripts(
  deps: TranscriptDeps,
  ctx: ApiContext,
  request: JobRequest,
): ((item: JobItem) => Promise<ItemTranscript>) | undefined {
  const asked = request.transcripts;
  if (!asked) return undefined;
  const signal = ctx.request.signal;
  return async (item) => {
    const transcript = await whenSlotFrees(
      () => transcriptOf(deps, new URL(item.url), asked.lang, slotHolder(ctx), signal),
      ["too_many_extractions"],
      signal,
    );
    const stem = itemName(item.post!.platform, item.post!.id, { filename: null, index: null });
    return {
      name: `${stem}.${transcript.lang}.${transcriptExts[asked.format]}`,
      text: transcriptFormats[asked.format].body(transcript),
      lang: transcript.lang,
      auto: transcript.auto,
    };
  };
}

/**
 * What a download of file `index` (as `download` takes it) of an item's post asks for: the job's
 * format, output and clip. The archive and an item's check of its files ask the same.
 */
export function wantedOf(post: PostRecord | null, index: number | null, request: JobRequestFiles): Wanted {
  const media = post?.media[(index ?? 1) - 1];
  return {
    output: request.output,
    // A format names a video's variant; a photo has none.
    format: media?.type === "photo" ? null : request.format,
    index,
    subtitles: null,
    filename: null,
    // A photo of a post has no part to cut; the job's clip is each video's.
    clip: media?.type === "photo" ? null : request.clip ?? null,
  };
}
