// A job's expansion: its links into the posts they stand for, as items in the caller's order. Its
// start puts the job's links on the queue in runs of a few turns of its key's share (a part), so
// that one job's parts are read on every instance at once, one part of a key at a time on each.
// A part's links are read a few at a time, in order (link-reads.ts), each read kept until every
// link before it has its items; then whichever read finished the run of them takes them all, in
// one write, and queues their items, so a job's first items start as soon as its first link is read.
import { asking, platformOf } from "../operations/ask.ts";
import { ApiError } from "../http/problem.ts";
import type { SlotHolder } from "../limits/slots.ts";
import type { Again, Queue } from "../queue/queue.ts";
import type { Expands, Expansion, Link, OnePost, Source } from "../platforms/source.ts";
import { rowOf, standsForMany } from "../platforms/table.ts";
import { asAccount, type JobDeps } from "./background.ts";
import type { Job } from "./job.ts";
import { groupOf, JOB_ITEMS_AT_ONCE, type KeyGroup, LINKS, queueAt } from "./queues.ts";
import { NO_SLOT, type NoSlot, readInOrder } from "./link-reads.ts";
import { jobMaxItemsOf } from "./request.ts";
import {
  appendItems,
  dropTakenReads,
  finishExpansion,
  finishIfSettled,
  heldExpansion,
  jobOf,
  keepLinkRead,
  keptLinks,
  type ReadPost,
  startExpansion,
} from "./store.ts";
import { afterRest, isNoSlot, type Resting, retryHelps, whenSlotMayFree } from "./waits.ts";

/** A part of a job's links to read, as the queue carries it: the 0-based places of its first link and of the one past its last. */
export interface QueuedLinks extends Resting {
  jobId: string;
  from: number;
  to: number;
}

/**
 * Turns of its key's share in a part: long enough that its reads keep the share busy (a part waits
 * for its slowest read), short enough that a job of hundreds of links is read on every instance.
 */
const TURNS_IN_A_PART = 4;

/** How many reads of a key's part run at once: its share. */
const widthOf = (tier: string) => JOB_ITEMS_AT_ONCE[tier] ?? JOB_ITEMS_AT_ONCE.FREE!;

/** One link as read: the posts it stands for (with the record where the read gave it), and why some are missing. */
interface LinkRead {
  posts: ReadPost[];
  missing: string | null;
}

/**
 * Starts a job (at its `runAt`): marks it running and puts its links on the queue, in parts, in the
 * job key's group, once. A job whose links were all read before (by an earlier version, which
 * read them in its expansion) is taken and ended here.
 */
export async function startJob(deps: JobDeps, queue: Queue, jobId: string): Promise<true> {
  const group = await groupOf(deps.db, jobId);
  const started = await deps.db.transaction(async (tx) => {
    const links = await startExpansion(tx, jobId, deps.now());
    if (links === null) return null;
    const part = widthOf(group.tier) * TURNS_IN_A_PART;
    const parts = [];
    for (let from = links.from; from < links.count; from += part) {
      // Its first part first: the queue takes the highest priority first, and parts sent together come in no order.
      parts.push({ data: { jobId, from, to: Math.min(links.count, from + part) }, group, priority: -from });
    }
    await queue.send(LINKS, parts, tx);
    return links;
  });
  if (started !== null && started.from >= started.count) await takeReads(deps, queue, jobId, group);
  return true;
}

/**
 * Reads a part of a job's links, in order, a few at a time (its key's share), each read kept and
 * the reads next in order taken as they come. Where the key's slots are all held, or its platform
 * rests, the rest of the part comes again later; false asks the queue to retry (a failure a retry
 * can help). A part run again after its instance died does not read again the links it read.
 */
export async function readPartOfJob(
  deps: JobDeps,
  queue: Queue,
  part: QueuedLinks,
  last: boolean,
): Promise<boolean | Again<QueuedLinks>> {
  const job = await jobOf(deps.db, part.jobId);
  if (job === null || job.status === "cancelled" || job.expanded) return true;
  const group = await groupOf(deps.db, part.jobId);
  const holder: SlotHolder = { id: job.apiKeyId, accountId: Number(job.accountId), tier: group.tier };
  let items = job.counts.total;
  const from = Math.max(part.from, job.counts.linksRead);
  // Asked once, not by each read: reads started in order then ask for their slots in order, so the first link gets one.
  const kept = await keptLinks(deps.db, job.id, from, part.to);
  const keep = async (at: number, read: LinkRead | null) => {
    if (read !== null) await keepLinkRead(deps.db, job.id, at, read);
  };
  try {
    const reading = await readInOrder<LinkRead | null>({
      from,
      count: part.to,
      width: widthOf(group.tier),
      read: (at) =>
        kept.has(at)
          ? Promise.resolve(null)
          : readLink(deps, { job, holder, at, limit: Math.max(1, jobMaxItemsOf(group.tier) - items), last }),
      async take(at, reads) {
        for (const [n, read] of reads.entries()) await keep(at + n, read);
        const taken = await takeReads(deps, queue, job.id, group);
        items = taken.items;
        // A job that ended (it is full) reads no more.
        return taken.ended ? 0 : reads.length;
      },
      keep,
    });
    return reading.noSlot ? whenSlotMayFree({ ...part, from: reading.next }) : true;
  } catch (error) {
    const rested = error instanceof ApiError && retryHelps(error) ? afterRest(part, error) : null;
    if (rested !== null) return rested;
    if (!last) return false;
    // The last attempt of a failure no problem names: the job ends with what it has, saying why.
    deps.log.error("a job's links could not be expanded", { jobId: job.id, error: String(error) });
    await endExpansion(deps, job.id, "Its links could not be expanded; the operator's log says why.");
    return true;
  }
}

/**
 * Takes the kept reads that follow the job's last taken link, in order, as items (up to the job's
 * most), queued inside the same write; ends the expansion once every link is taken or the job is
 * full, and then tells who listens. How many items the job has, and whether its expansion has ended.
 */
async function takeReads(
  deps: JobDeps,
  queue: Queue,
  jobId: string,
  group: KeyGroup,
): Promise<{ items: number; ended: boolean }> {
  const most = jobMaxItemsOf(group.tier);
  const taken = await deps.db.transaction(async (tx) => {
    const held = await heldExpansion<LinkRead>(tx, jobId);
    if (held === null) return { items: most, ended: true, endedNow: false };
    const ready = inOrderFrom(held.linksRead, held.reads);
    const taken = upTo(most - held.items, most, ready);
    const linksRead = held.linksRead + taken.links;
    if (taken.links > 0) {
      const positions = await appendItems(tx, jobId, { at: held.linksRead, ...taken });
      if (positions !== null) await queueAt(tx, queue, { jobId, group, positions });
      await dropTakenReads(tx, jobId, linksRead);
    }
    const items = held.items + taken.posts.length;
    if (linksRead < held.links && items < most) return { items, ended: false, endedNow: false };
    const unread = held.links - linksRead;
    const why = unread > 0 ? `${unread} of its links were not read: the job holds at most ${most} items` : null;
    return { items, ended: true, endedNow: await finishExpansion(tx, jobId, why, deps.now()) };
  });
  if (taken.endedNow) await toldEnded(deps, jobId);
  return { items: taken.items, ended: taken.ended };
}

/** Ends the job's expansion with `why` its links are not all read, and tells who listens. */
async function endExpansion(deps: JobDeps, jobId: string, why: string): Promise<void> {
  if (await finishExpansion(deps.db, jobId, why, deps.now())) await toldEnded(deps, jobId);
}

/** After its expansion ended: the job ends too where every item is settled, and who listens hears of it. */
async function toldEnded(deps: JobDeps, jobId: string): Promise<void> {
  await finishIfSettled(deps.db, jobId, deps.now());
  await deps.events?.settled(jobId, null);
}

/** The reads of the links from `from` on with none missing between them. */
function inOrderFrom<Read>(from: number, reads: readonly { at: number; read: Read }[]): Read[] {
  const ready: Read[] = [];
  for (const { at, read } of reads) {
    if (at !== from + ready.length) break;
    ready.push(read);
  }
  return ready;
}

/**
 * Links read one after another, taken as one write: how many are taken (none once the job is full), their posts up to
 * `room` more, and why some are missing.
 */
function upTo(room: number, most: number, reads: readonly LinkRead[]): {
  links: number;
  posts: ReadPost[];
  missing: string | null;
} {
  const posts: ReadPost[] = [];
  const missing: string[] = [];
  let links = 0;
  for (const read of reads) {
    if (posts.length >= room) break;
    links += 1;
    const kept = read.posts.slice(0, room - posts.length);
    posts.push(...kept);
    if (read.missing !== null) missing.push(read.missing);
    if (kept.length < read.posts.length) missing.push(`the job holds at most ${most} items`);
  }
  return { links, posts, missing: missing.length === 0 ? null : missing.join("; ") };
}

/**
 * Link `at` of the job as read now, or NO_SLOT when the key's slots are all held; throws where a
 * retry may help (its platform failed, or rests). A link that cannot be expanded (or not now, on
 * the last attempt) is one item: its own problem shows when it runs.
 */
async function readLink(
  deps: JobDeps,
  { job, holder, at, limit, last }: { job: Job; holder: SlotHolder; at: number; limit: number; last: boolean },
): Promise<LinkRead | NoSlot> {
  const pasted = job.request.urls[at]!;
  let found: LinkPosts;
  try {
    found = await linkPostsOf(deps, pasted, { limit, threads: job.request.threads ?? true }, holder);
  } catch (error) {
    if (isNoSlot(error)) return NO_SLOT;
    if (!(error instanceof ApiError) || (retryHelps(error) && !last)) throw error;
    return { posts: [{ url: pasted.href, post: null }], missing: unexpanded(pasted, error) };
  }
  const { expansion } = found;
  if (expansion === null) return { posts: [{ url: found.link.href, post: null }], missing: null };
  if ("post" in expansion) return { posts: [{ url: found.link.href, post: expansion.post }], missing: null };
  return {
    posts: expansion.posts.map((post, at) => ({ url: post.href, post: null, title: expansion.titles?.[at] ?? null })),
    missing: expansion.complete ? null : `${pasted.href}: ${expansion.incomplete ?? "not every post was reached"}`,
  };
}

/** Why a link is one item: its problem's code. */
const unexpanded = (pasted: URL, error: ApiError) =>
  `${pasted.href} could not be expanded (${error.code}), so it is one item`;

const expandsPosts = (source: Source): source is Source & Expands => "expand" in source;

/** A pasted link as its reader reads it (a short link followed), and the posts it stands for (null: it is one post). */
export interface LinkPosts {
  link: URL;
  /** The posts it stands for; a OnePost when reading it found one post; null when it is one post not read. */
  expansion: Expansion | OnePost | null;
}

/**
 * What `pasted` stands for when its source can say, asked as `post` asks (the link resolved first,
 * once, so that its items need not follow it again; the source's tools; an extraction slot of the
 * job's key, 429 too_many_extractions when none is free); a null expansion when it is one post (or
 * no platform's: its item says so).
 */
export async function linkPostsOf(
  deps: JobDeps,
  pasted: URL,
  { limit, threads }: { limit: number; threads: boolean },
  holder: SlotHolder,
): Promise<LinkPosts> {
  const signal = AbortSignal.timeout(EXPANSION_TIMEOUT_MS);
  const url = await deps.resolveLink(pasted, signal);
  const platform = await platformOf(url, deps);
  if (platform === null) return { link: url, expansion: null };
  const link = { url, platform };
  const source = (await asAccount(deps, holder)).sources(link);
  // A link its source would not read (a post link no listing stands for) takes no slot to be told so.
  const expansion = expandsPosts(source) && (source.mayExpand?.(link) ?? true)
    ? await asking(deps, source, link, holder, () => source.expand(link, limit, signal, threads))
    : null;
  if (expansion === null && standsForMany(url, platform)) return { link: url, expansion: notListed(link) };
  return { link: url, expansion };
}

/** A profile, feed or list link no source lists the posts of: no item (its item could only fail), and why. */
const notListed = (link: Link): Expansion => ({
  posts: [],
  complete: false,
  incomplete: `this service cannot list the posts of this ${
    rowOf(link.platform)?.name ?? link.platform
  } profile, feed or list; pass the links of its posts`,
});

/** Bounds one link's expansion (a channel of thousands pages through yt-dlp). */
const EXPANSION_TIMEOUT_MS = 5 * 60_000;
