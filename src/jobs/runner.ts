// What runs a job, on whichever instance the queue hands it to: first its expansion (its links
// into the posts they stand for, as items in reading order: jobs/expansion.ts), then each item, one
// counted call of the job's key that looks its post up as `post` does. The queue carries the ids;
// the rows say what is left to do, so an item run twice (its instance died halfway) is settled and
// counted once.
import { postRecord } from "../operations/post.ts";
import { planOf } from "../operations/download.ts";
import { requireAnswers } from "../media/run-plan.ts";
import type { PostRecord } from "../platforms/records.ts";
import { fileIndexesOf } from "./archive.ts";
import { wantedOf } from "./archive-files.ts";
import { ApiError } from "../http/problem.ts";
import type { SlotHolder } from "../limits/slots.ts";
import type { Logger } from "../log.ts";
import { type ClaimedItem, claimItem, countItem, type ItemOutcome, settleItem } from "./store.ts";
import type { ItemProblem } from "./job.ts";
import type { Again, Queue } from "../queue/queue.ts";
import { afterRest, type Resting, retryHelps, whenSlotFrees } from "./waits.ts";
import { asAccount, type JobDeps } from "./background.ts";
import {
  EXPANSIONS,
  EXPANSIONS_AT_ONCE,
  groupOf,
  ITEMS,
  JOB_ITEMS_AT_ONCE,
  LINK_PARTS_AT_ONCE,
  LINKS,
} from "./queues.ts";
import { type QueuedLinks, readPartOfJob, startJob } from "./expansion.ts";

export interface Jobs {
  /** Queues the expansion of a job just recorded, to start `startAfterS` seconds from now (its `runAt`). */
  queueExpansion(jobId: string, startAfterS?: number): Promise<void>;
  /** Starts this instance's workers on the queue. */
  work(): Promise<void>;
}

/** The jobs of an instance, on `deps` made inBackground. */
export function createJobs(deps: JobDeps, queue: Queue): Jobs {
  return {
    queueExpansion: async (jobId, startAfterS) =>
      queue.send(EXPANSIONS, [{ data: { jobId }, group: await groupOf(deps.db, jobId), startAfterS }]),
    async work() {
      // The items' and links' lanes before the expansions': a start queues links, and a read its items,
      // inside a store transaction, and a lane not made yet is made outside it, which on PGlite waits
      // for that transaction to end, for ever. Work left waiting from before a restart runs as soon as its worker starts.
      const shares = (perTier: Readonly<Record<string, number>>) => ({ perTier, otherwise: perTier.FREE! });
      await queue.work<QueuedItem>({
        queue: ITEMS,
        concurrency: deps.settings.concurrency,
        groups: shares(JOB_ITEMS_AT_ONCE),
        run: (item, attempt) => runItem(deps, item, attempt.last),
      });
      await queue.work<QueuedLinks>({
        queue: LINKS,
        // A part reads up to its key's share at once: as many parts as the jobs' extraction slots keep those busy.
        concurrency: deps.settings.extractionSlots,
        groups: shares(LINK_PARTS_AT_ONCE),
        run: (part, attempt) => readPartOfJob(deps, queue, part, attempt.last),
      });
      await queue.work<{ jobId: string }>({
        queue: EXPANSIONS,
        // A start only puts the job's links on the queue: a few workers start every tier's jobs.
        concurrency: EXPANSIONS_AT_ONCE.GOLD!,
        groups: shares(EXPANSIONS_AT_ONCE),
        run: ({ jobId }) => startJob(deps, queue, jobId),
      });
    },
  };
}

/**
 * Runs one item: its post's record, or its problem; false asks the queue to retry it, and one whose
 * platform rests comes again when it may be asked again.
 */
async function runItem(deps: JobDeps, item: QueuedItem, last: boolean): Promise<boolean | Again<QueuedItem>> {
  const { jobId, position } = item;
  const claimed = await claimItem(deps.db, jobId, position);
  if (claimed === null) return true;
  const settle = async (outcome: ItemOutcome) => {
    await settleItem(deps.db, jobId, position, outcome, deps.now());
    await deps.events?.settled(jobId, position);
  };
  if ((await countItem(deps.db, jobId, position, deps.now())) === null) {
    await settle({
      problem: { code: "quota_exceeded", detail: "The key's daily limit was used up before this item ran." },
    });
    return true;
  }
  const holder: SlotHolder = { id: claimed.apiKeyId, accountId: claimed.accountId, tier: claimed.tier };
  try {
    // The record its link's one read gave is the item's: the page is not read twice.
    const reader = await asAccount(deps, holder);
    const read = claimed.read ?? await whenSlotFrees(() => postRecord(reader, new URL(claimed.url), { key: holder }));
    // A feed's title for its entry is the post's text, over its page's (often only its file's name).
    const post = claimed.listedTitle === null ? read : { ...read, text: claimed.listedTitle };
    // An item with files is done only when each answers: the archive would meet a dead file.
    for (const index of fileIndexesOf(post, claimed.request)) {
      await requireFile(reader, claimed, { post, index, holder });
    }
    await settle({ post });
  } catch (error) {
    if (error instanceof ApiError && retryHelps(error)) {
      const rested = afterRest(item, error);
      if (rested !== null) return rested;
      if (!last) return false;
    }
    await settle({ problem: problemOf(error, deps.log, jobId, position) });
  }
  return true;
}

/** An item as the queue carries it. */
interface QueuedItem extends Resting {
  jobId: string;
  position: number;
}

/** Bounds the check of one file of an item: its plan, and its first byte. */
const FILE_CHECK_TIMEOUT_MS = 60_000;

/**
 * Throws the problem a download of file `index` of the item's post would meet before its first
 * byte: its plan made as the archive makes it, and the media that plan reads asked for one byte.
 */
async function requireFile(
  deps: JobDeps,
  item: ClaimedItem,
  { post, index, holder }: { post: PostRecord; index: number | null; holder: SlotHolder },
): Promise<void> {
  const signal = AbortSignal.timeout(FILE_CHECK_TIMEOUT_MS);
  const wanted = wantedOf(post, index, item.request);
  const plan = await whenSlotFrees(() => planOf(new URL(item.url), wanted, { signal, holder }, deps));
  await requireAnswers(plan, deps.runner, signal);
}

/** An item's failure as the API would have answered it; anything but an ApiError is logged and told as internal. */
function problemOf(error: unknown, log: Logger, jobId: string, position: number): ItemProblem {
  if (error instanceof ApiError) return { code: error.code, detail: error.message };
  log.error("a job's item failed unexpectedly", { jobId, position, error: String(error) });
  return { code: "internal_error", detail: "The item could not be run; the operator's log says why." };
}
