// A job's expansion: its links into the posts they stand for, as items in the caller's order. Its
// start puts each link on the queue as a read of its own, so one job's links are read on every
// instance at once, each key's up to its share there. A read is kept until every link before it
// has its items; then whichever read finished the run of them takes them all, in one write, and
// queues their items, so a job's first items start as soon as its first link is read.
import { asking, platformOf } from "../operations/ask.ts";
import { ApiError } from "../http/problem.ts";
import type { SlotHolder } from "../limits/slots.ts";
import type { Again, Queue } from "../queue/queue.ts";
import type { Expands, Expansion, Link, OnePost, Source } from "../platforms/source.ts";
import { rowOf, standsForMany } from "../platforms/table.ts";
import { asAccount, type JobDeps } from "./background.ts";
import type { Job } from "./job.ts";
import { groupOf, type KeyGroup, LINKS, queueAt } from "./queues.ts";
import { jobMaxItemsOf } from "./request.ts";
import {
  appendItems,
  dropTakenReads,
  finishExpansion,
  finishIfSettled,
  heldExpansion,
  jobOf,
  keepLinkRead,
  linkWasRead,
  type ReadPost,
  startExpansion,
} from "./store.ts";
import { afterRest, isNoSlot, type Resting, retryHelps, whenSlotMayFree } from "./waits.ts";

/** One link of a job to read, as the queue carries it: the 0-based place of the link in the job's. */
export interface QueuedLink extends Resting {
  jobId: string;
  at: number;
}

/** One link as read: the posts it stands for (with the record where the read gave it), and why some are missing. */
interface LinkRead {
  posts: ReadPost[];
  missing: string | null;
}

/**
 * Starts a job (at its `runAt`): marks it running and puts its links on the queue, each a read in
 * the job key's group, once. A job whose links were all read before (by an earlier version, which
 * read them in its expansion) is taken and ended here.
 */
export async function startJob(deps: JobDeps, queue: Queue, jobId: string): Promise<true> {
  const group = await groupOf(deps.db, jobId);
  const started = await deps.db.transaction(async (tx) => {
    const links = await startExpansion(tx, jobId, deps.now());
    if (links === null) return null;
    const reads = Array.from({ length: links.count - links.from }, (_, n) => ({ jobId, at: links.from + n }));
    await queue.send(LINKS, reads.map((data) => ({ data, group, priority: linkTurnOf(data.at) })), tx);
    return links;
  });
  if (started !== null && started.from >= started.count) await takeReads(deps, queue, jobId, group);
  return true;
}

/**
 * A link's priority on its lane: its place in its job, so that a job's links are read in order (the
 * queue takes the highest first; its links, sent together, would otherwise come in no order, and a
 * read that came again for want of a slot after the ones behind it), and a key's first link comes
 * before the hundredth of another key's job that started earlier.
 */
const linkTurnOf = (at: number) => -at;

/**
 * Reads one link of a job and keeps what it stands for, then takes the reads that are next in
 * order. A link whose key has no slot free, or whose platform rests, comes again later; false asks
 * the queue to retry (a failure a retry can help). A link run again after its instance died is not
 * read twice.
 */
export async function readLinkOfJob(
  deps: JobDeps,
  queue: Queue,
  link: QueuedLink,
  last: boolean,
): Promise<boolean | Again<QueuedLink>> {
  const job = await jobOf(deps.db, link.jobId);
  if (job === null || job.status === "cancelled" || job.expanded) return true;
  const group = await groupOf(deps.db, link.jobId);
  const room = jobMaxItemsOf(group.tier) - job.counts.total;
  // A full job reads no more: the take ends its expansion, naming the links left.
  if (room > 0 && !(await linkWasRead(deps.db, link.jobId, link.at))) {
    const holder: SlotHolder = { id: job.apiKeyId, accountId: Number(job.accountId), tier: group.tier };
    const read = await readLink(deps, { job, holder, link, limit: room, last });
    if (!("posts" in read)) return read.again ?? false;
    await keepLinkRead(deps.db, link.jobId, link.at, read);
  }
  await takeReads(deps, queue, link.jobId, group);
  return true;
}

/**
 * Takes the kept reads that follow the job's last taken link, in order, as items (up to the job's
 * most), queued inside the same write; ends the expansion once every link is taken or the job is
 * full, and then tells who listens.
 */
async function takeReads(deps: JobDeps, queue: Queue, jobId: string, group: KeyGroup): Promise<void> {
  const most = jobMaxItemsOf(group.tier);
  const ended = await deps.db.transaction(async (tx) => {
    const held = await heldExpansion<LinkRead>(tx, jobId);
    if (held === null) return false;
    const ready = inOrderFrom(held.linksRead, held.reads);
    const taken = upTo(most - held.items, most, ready);
    const linksRead = held.linksRead + taken.links;
    if (taken.links > 0) {
      const positions = await appendItems(tx, jobId, { at: held.linksRead, ...taken });
      if (positions !== null) await queueAt(tx, queue, { jobId, group, positions });
      await dropTakenReads(tx, jobId, linksRead);
    }
    const full = held.items + taken.posts.length >= most;
    if (linksRead < held.links && !full) return false;
    const unread = held.links - linksRead;
    const why = unread > 0 ? `${unread} of its links were not read: the job holds at most ${most} items` : null;
    return finishExpansion(tx, jobId, why, deps.now());
  });
  if (!ended) return;
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
 * The link as read now; `again` when it is to come again later (no slot, or its platform rests),
 * an empty answer when the queue is to retry it. A link that cannot be expanded (or not now, on
 * the last attempt) is one item: its own problem shows when it runs.
 */
async function readLink(
  deps: JobDeps,
  { job, holder, link, limit, last }: { job: Job; holder: SlotHolder; link: QueuedLink; limit: number; last: boolean },
): Promise<LinkRead | { again?: Again<QueuedLink> }> {
  const pasted = job.request.urls[link.at]!;
  let found: LinkPosts;
  try {
    found = await linkPostsOf(deps, pasted, { limit, threads: job.request.threads ?? true }, holder);
  } catch (error) {
    if (isNoSlot(error)) return { again: whenSlotMayFree(link) };
    if (error instanceof ApiError && retryHelps(error)) {
      const rested = afterRest(link, error);
      if (rested !== null) return { again: rested };
    }
    if (!last && (!(error instanceof ApiError) || retryHelps(error))) return {};
    return { posts: [{ url: pasted.href, post: null }], missing: unexpanded(deps, job, pasted, error) };
  }
  const { expansion } = found;
  if (expansion === null) return { posts: [{ url: found.link.href, post: null }], missing: null };
  if ("post" in expansion) return { posts: [{ url: found.link.href, post: expansion.post }], missing: null };
  return {
    posts: expansion.posts.map((post, at) => ({ url: post.href, post: null, title: expansion.titles?.[at] ?? null })),
    missing: expansion.complete ? null : `${pasted.href}: ${expansion.incomplete ?? "not every post was reached"}`,
  };
}

/** Why a link is one item: its problem's code, or, for a failure no problem names, the operator's log. */
function unexpanded(deps: JobDeps, job: Job, pasted: URL, error: unknown): string {
  if (error instanceof ApiError) return `${pasted.href} could not be expanded (${error.code}), so it is one item`;
  deps.log.error("a job's link could not be expanded", { jobId: job.id, url: pasted.href, error: String(error) });
  return `${pasted.href} could not be expanded (the operator's log says why), so it is one item`;
}

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
  const expansion = expandsPosts(source)
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
