// A job's archive (GET /api/v1/jobs/{id}/archive): one ZIP of every done item's files and
// `records.json`, made while it is sent. client-zip pulls the next entry, and the next bytes of an
// entry, only when the response's reader asks for more, so each file is fetched from its source
// only as fast as the client takes the archive, and nothing of it is kept (on disk or in memory
// beyond a chunk). Sizes are not known ahead, so every entry has a data descriptor and the archive
// turns ZIP64 where it passes 4 GiB. A file whose source fails before its first byte (a dead link,
// a platform's refusal) is left out, and records.json names it with its problem: one dead file does
// not take the others. One that fails midway errors the stream: the client's transfer breaks, as a
// download's does, rather than ending in a clean ZIP with a short file.
import { makeZip } from "client-zip";
import { ApiError } from "../http/problem.ts";
import type { OutputKind } from "../platforms/source.ts";
import type { ItemProblem, Job, JobItem, JobRequest } from "./job.ts";
import type { PostRecord } from "../platforms/records.ts";

/** One file of an item as `download` gives it: its name as the response names it, and its body. */
export interface ItemFile {
  name: string;
  body: ReadableStream<Uint8Array>;
}

/** Which file of an item's post (`index` as `download` takes it: null for the post's default). */
export interface FileWanted {
  item: JobItem;
  index: number | null;
}

/** A file of an item left out of the archive: which (`index` as in FileWanted) and why. */
export interface FileProblem {
  index: number | null;
  code: string;
  detail: string;
}

/** An item's transcript as the archive holds it: its name as the archive names it (without the position), its text, its track. */
export interface ItemTranscript {
  name: string;
  text: string;
  lang: string;
  auto: boolean;
}

/** What records.json says of an item's transcript, where the job asked for them: its entry, or why it has none. */
interface TranscriptFields {
  transcript: { file: string; lang: string; auto: boolean } | null;
  transcriptProblem?: ItemProblem;
}

/** An item of records.json: as the job shows it, with the names of its files in the archive and those left out. */
export interface ArchivedItem extends JobItem, Partial<TranscriptFields> {
  files: string[];
  fileProblems?: FileProblem[];
}

export interface ArchiveInput {
  job: Job;
  /** The job's items in its order. */
  items: AsyncIterable<JobItem>;
  /** Gets one file of an item, when the archive reaches it. */
  fileOf(wanted: FileWanted): Promise<ItemFile>;
  /** Gets a done item's transcript, where the job asked for them (`transcripts`). */
  transcriptOf?(item: JobItem): Promise<ItemTranscript>;
  now: Date;
}

/**
 * The files of a done item: each media item of its post when it has several, else the post's
 * default; none for a post without media or when the job asked for records only. Sound alone
 * (`audio`) takes nothing from a photo.
 */
export function filesOf(item: JobItem, job: Job): FileWanted[] {
  if (item.status !== "done") return [];
  return fileIndexesOf(item.post, job.request).map((index) => ({ item, index }));
}

/** The files of a post a job takes, each as `download`'s `index` (null: the post's default); an item checks them. */
export function fileIndexesOf(
  post: PostRecord | null,
  request: Pick<JobRequest, "files" | "output">,
): (number | null)[] {
  const media = post?.media ?? [];
  if (!request.files) return [];
  const kept = media.flatMap((entry, at) => (keepsItem(entry.type, request.output) ? [at + 1] : []));
  return media.length === 1 ? kept.map(() => null) : kept;
}

/** Sound alone has nothing to take from a photo. */
const keepsItem = (type: string, output: OutputKind) => output === "mp4" || type !== "photo";

/** `0007-x_123.mp4`: the item's place first, so that the archive lists files in the job's order. */
export const entryName = (position: number, name: string) => `${String(position).padStart(4, "0")}-${name}`;

async function* entries(input: ArchiveInput) {
  const archived: ArchivedItem[] = [];
  for await (const item of input.items) {
    const names: string[] = [];
    const problems: FileProblem[] = [];
    for (const wanted of filesOf(item, input.job)) {
      const file = await startedFile(input, wanted);
      if ("code" in file) {
        problems.push(file);
        continue;
      }
      const name = entryName(item.position, file.name);
      names.push(name);
      yield { name, input: file.body, lastModified: input.now };
    }
    const transcript = await transcriptOfItem(input, item);
    if (transcript?.fields.transcript) {
      yield { name: transcript.fields.transcript.file, input: transcript.text, lastModified: input.now };
    }
    archived.push({
      ...item,
      files: names,
      ...(problems.length > 0 ? { fileProblems: problems } : {}),
      ...transcript?.fields,
    });
  }
  yield { name: "records.json", input: recordsJson(input.job, archived), lastModified: input.now };
}

/**
 * The file with its first bytes read, or its problem when its source failed before them. Only a
 * problem the service names (an ApiError) is left out; a client gone stops the archive, and
 * anything unforeseen breaks it, visibly.
 */
async function startedFile(input: ArchiveInput, wanted: FileWanted): Promise<ItemFile | FileProblem> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    const file = await input.fileOf(wanted);
    reader = file.body.getReader();
    const first = await reader.read();
    return { name: file.name, body: withFirst(first, reader) };
  } catch (error) {
    await reader?.cancel().catch(() => {});
    if (!(error instanceof ApiError) || error.code === "client_closed") throw error;
    return { index: wanted.index, code: error.code, detail: error.message };
  }
}

/**
 * A done item's transcript and what records.json says of it, where the job asked for transcripts.
 * A post without one (404 `no_transcript`), or without the language asked for, has no entry and
 * its problem instead: as for a file, only a problem the service names.
 */
async function transcriptOfItem(
  input: ArchiveInput,
  item: JobItem,
): Promise<{ text: string; fields: TranscriptFields } | null> {
  if (!input.job.request.transcripts || !input.transcriptOf || item.status !== "done") return null;
  try {
    const { name, text, lang, auto } = await input.transcriptOf(item);
    return { text, fields: { transcript: { file: entryName(item.position, name), lang, auto } } };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code === "client_closed") throw error;
    return { text: "", fields: { transcript: null, transcriptProblem: { code: error.code, detail: error.message } } };
  }
}

/** The body again: the chunk already read, then the rest as it is asked for. */
function withFirst(
  first: ReadableStreamReadResult<Uint8Array>,
  rest: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let pending: ReadableStreamReadResult<Uint8Array> | null = first;
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = pending ?? (await rest.read());
      pending = null;
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => rest.cancel(reason),
  }, { highWaterMark: 0 });
}

/** The job and its items in its order, with each item's files' names: the archive's last entry. */
export function recordsJson(job: Job, items: readonly ArchivedItem[]): string {
  const { id, status, createdAt, finishedAt, counts, complete, incomplete } = job;
  return JSON.stringify({ id, status, createdAt, finishedAt, counts, complete, incomplete, items }, null, 2);
}

/** The archive as a stream; it pulls its entries (and their sources) as it is read. */
export function archiveStream(input: ArchiveInput): ReadableStream<Uint8Array> {
  const zip = makeZip(entries(input), { buffersAreUTF8: true }).getReader();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await zip.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    // client-zip ends the entry it was reading by throwing the reason into its generator, and then
    // rejects with it; a cancelled archive has nobody left to tell.
    cancel: (reason) => zip.cancel(reason).catch(() => {}),
  }, { highWaterMark: 0 });
}
