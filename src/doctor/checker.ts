// The platform check: each site's reference post fetched the way a user's `post` is, one after
// the other, classed (classify.ts), and kept as the latest picture. Runs on demand (`admin
// doctor`), at the operator's interval in the background with jitter, and when a user's request
// is refused (that site only, at most every 10 minutes): only the platform's answer to the
// reference post marks a site, never one user's link. Never two runs at a time.
import { type CheckStatus, classifyFailure, type FailureContext } from "./classify.ts";
import type { ReferencePost } from "./reference-posts.ts";

export interface CheckResult {
  /** The platform's id (of the list) or the EXTRA_PAGE_HOSTS entry. */
  site: string;
  /** The reference post. */
  url: string;
  status: CheckStatus | "unchecked";
  /** How long the reference post took, ok or not; null when it was not fetched. */
  seconds: number | null;
  detail: string;
  remedy: string | null;
  /** When this was learnt; null before the first check. */
  at: string | null;
  /** `check`: a run on demand or in the background; `requests`: a run a user's refused request asked for. */
  from: "check" | "requests";
}

export interface PlatformChecksOptions {
  posts: readonly ReferencePost[];
  /** Fetches a post as the `post` operation does, without a key, a cache or a quota. */
  fetchPost(url: URL): Promise<unknown>;
  /** The site of a page a user asked for (its platform, or its EXTRA_PAGE_HOSTS entry); null for none. */
  siteOf(page: URL): string | null;
  /** What the classing of a failure needs to know about the site's extractor and the operator's cookies. */
  context(site: string): Promise<FailureContext>;
  /** Told of every new result (metrics). */
  onResult?(result: CheckResult): void;
  /** Why the pages are read without the extraction host, while they are; null while it is in use or starting. */
  extractionNote?(): string | null;
  now?: () => Date;
  random?: () => number;
}

export interface PlatformChecks {
  /** The sites that have a reference post, in order. */
  readonly sites: readonly string[];
  /** Checks `sites` (all when empty) once any run in progress has ended; their results. */
  run(sites?: readonly string[]): Promise<CheckResult[]>;
  /** The latest result of every site, unchecked ones included. */
  results(): CheckResult[];
  /**
   * Why the extraction host is not in use, while it cannot be: every page is then read by the
   * tool's program, a second each, which a check's times show but do not explain. Null otherwise.
   */
  extractionNote(): string | null;
  /**
   * A user's request for `page` failed as `error` (upstream_blocked). One request is no verdict on
   * a platform (a private post, a link that reads like a refusal): it asks for a check of the
   * site's reference post, at most one per site every `confirmEveryS`, and the check's result is
   * what marks the site. Resolves when that check (if any) has ended.
   */
  noteFailure(page: URL, error: unknown): Promise<void>;
  /**
   * Runs all checks about every `intervalS` seconds (±25%; the first within 30 s of the call),
   * skipping a turn while a run is on; the function stops it.
   */
  every(intervalS: number): () => void;
}

/** Seconds from start to the first background run, at most. */
const firstRunAfterS = 30;
/** Seconds between two checks of one site that users' refused requests ask for, at least. */
export const confirmEveryS = 600;

const round = (seconds: number) => Math.round(seconds * 100) / 100;

export function createPlatformChecks(options: PlatformChecksOptions): PlatformChecks {
  const now = options.now ?? (() => new Date());
  const latest = new Map<string, CheckResult>(
    options.posts.map((
      post,
    ) => [post.site, {
      site: post.site,
      url: post.url.href,
      status: "unchecked",
      seconds: null,
      detail: "not checked yet",
      remedy: null,
      at: null,
      from: "check",
    }]),
  );
  const record = (result: CheckResult) => {
    latest.set(result.site, result);
    options.onResult?.(result);
    return result;
  };
  // The reference post being fetched: its own refusal reaches noteFailure too.
  let checking: string | null = null;
  const checkOne = async (post: ReferencePost, from: CheckResult["from"]) => {
    checking = post.url.href;
    try {
      return record({
        site: post.site,
        url: post.url.href,
        from,
        ...(await checkPost(post, options)),
        at: now().toISOString(),
      });
    } finally {
      checking = null;
    }
  };
  const runs = chainedRuns((wanted: readonly string[], from: CheckResult["from"]) =>
    sequentially(postsOf(options.posts, wanted), (post) => checkOne(post, from))
  );
  const asked = new Map<string, number>();
  return {
    sites: options.posts.map((post) => post.site),
    run: (wanted = []) => runs.run(wanted, "check"),
    results: () => [...latest.values()],
    extractionNote: () => options.extractionNote?.() ?? null,
    async noteFailure(page) {
      const site = options.siteOf(page);
      // The check under way says it itself, as a check; a site without a reference post is not marked.
      if (site === null || page.href === checking || !latest.has(site)) return;
      const at = now().getTime();
      if (at - (asked.get(site) ?? -Infinity) < confirmEveryS * 1000) return;
      asked.set(site, at);
      await runs.run([site], "requests");
    },
    every: (intervalS) =>
      runEvery(
        intervalS,
        () => (runs.pending() === 0 ? runs.run([], "check") : Promise.resolve([])),
        options.random ?? Math.random,
      ),
  };
}

/** The reference post fetched and classed: its status, detail, remedy and seconds. */
async function checkPost(
  post: ReferencePost,
  options: PlatformChecksOptions,
): Promise<Pick<CheckResult, "status" | "seconds" | "detail" | "remedy">> {
  const started = performance.now();
  const seconds = () => round((performance.now() - started) / 1000);
  try {
    await options.fetchPost(post.url);
    const took = seconds();
    return { status: "ok", seconds: took, detail: `answered in ${took} s`, remedy: null };
  } catch (error) {
    const took = seconds();
    return { ...classifyFailure(error, await options.context(post.site)), seconds: took };
  }
}

function postsOf(posts: readonly ReferencePost[], wanted: readonly string[]): readonly ReferencePost[] {
  return wanted.length === 0 ? posts : posts.filter((post) => wanted.includes(post.site));
}

async function sequentially<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await each(item));
  return results;
}

/** Runs of `body` chained, so one asked for while another is on waits for it. */
function chainedRuns<A extends unknown[], R>(
  body: (...args: A) => Promise<R>,
): { run(...args: A): Promise<R>; pending(): number } {
  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  return {
    run(...args) {
      pending += 1;
      const result = tail.then(() => body(...args)).finally(() => (pending -= 1));
      tail = result.catch(() => {});
      return result;
    },
    pending: () => pending,
  };
}

/**
 * Calls `turn` about every `intervalS` seconds (±25%: jitter, so instances started together do
 * not knock on the platforms together), the first soon after start (so a restart, after updating
 * yt-dlp say, shows at once), each after the previous one has settled; the function stops it.
 */
function runEvery(intervalS: number, turn: () => Promise<unknown>, random: () => number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const jittered = (seconds: number) => seconds * 1000 * (0.75 + 0.5 * random());
  const schedule = (seconds: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      const next = () => schedule(intervalS);
      void turn().then(next, next);
    }, jittered(seconds));
  };
  schedule(Math.min(intervalS, firstRunAfterS));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
