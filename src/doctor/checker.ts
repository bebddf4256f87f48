// The platform check: each site's reference post fetched the way a user's `post` is, one after
// the other, classed (classify.ts), and kept as the latest picture, which users' refused requests
// also mark between checks. Runs on demand (`admin doctor`) and, at the operator's interval, in
// the background with jitter; never two runs at a time.
import { classifyFailure, type CheckStatus, type FailureContext } from "./classify.ts";
import type { ReferencePost } from "./reference-posts.ts";

export interface CheckResult {
  /** The platform's id (YOUTUBE) or the EXTRA_PAGE_HOSTS entry. */
  site: string;
  /** The reference post; null for a site only users' requests have told about. */
  url: string | null;
  status: CheckStatus | "unchecked";
  /** How long the reference post took, ok or not; null when it was not fetched. */
  seconds: number | null;
  detail: string;
  remedy: string | null;
  /** When this was learnt; null before the first check. */
  at: string | null;
  /** `check`: the reference post; `requests`: a user's request the platform refused since the last check. */
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
  /** A user's request for `page` failed as `error` (upstream_blocked): marks its site until its next check. */
  noteFailure(page: URL, error: unknown): Promise<void>;
  /**
   * Runs all checks about every `intervalS` seconds (±25%; the first within 30 s of the call),
   * skipping a turn while a run is on; the function stops it.
   */
  every(intervalS: number): () => void;
}

/** Seconds from start to the first background run, at most. */
const firstRunAfterS = 30;

const round = (seconds: number) => Math.round(seconds * 100) / 100;

export function createPlatformChecks(options: PlatformChecksOptions): PlatformChecks {
  const now = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const sites = options.posts.map((post) => post.site);
  const latest = new Map<string, CheckResult>(
    options.posts.map((post) => [post.site, { site: post.site, url: post.url.href, status: "unchecked", seconds: null, detail: "not checked yet", remedy: null, at: null, from: "check" }]),
  );
  // Runs are chained, so a run asked for while another is on waits for it.
  let tail: Promise<unknown> = Promise.resolve();
  let pending = 0;
  // The reference post being fetched: its own refusal reaches noteFailure too.
  let checking: string | null = null;

  function record(result: CheckResult): CheckResult {
    latest.set(result.site, result);
    options.onResult?.(result);
    return result;
  }

  async function check(post: ReferencePost): Promise<CheckResult> {
    const started = performance.now();
    const base = { site: post.site, url: post.url.href, from: "check" as const };
    checking = post.url.href;
    try {
      await options.fetchPost(post.url);
      const seconds = round((performance.now() - started) / 1000);
      return record({ ...base, status: "ok", seconds, detail: `answered in ${seconds} s`, remedy: null, at: now().toISOString() });
    } catch (error) {
      const seconds = round((performance.now() - started) / 1000);
      const verdict = classifyFailure(error, await options.context(post.site));
      return record({ ...base, ...verdict, seconds, at: now().toISOString() });
    } finally {
      checking = null;
    }
  }

  async function runNow(wanted: readonly string[]): Promise<CheckResult[]> {
    const posts = wanted.length === 0 ? options.posts : options.posts.filter((post) => wanted.includes(post.site));
    const results: CheckResult[] = [];
    for (const post of posts) results.push(await check(post));
    return results;
  }

  function run(wanted: readonly string[] = []): Promise<CheckResult[]> {
    pending += 1;
    const results = tail.then(() => runNow(wanted)).finally(() => (pending -= 1));
    tail = results.catch(() => {});
    return results;
  }

  return {
    sites,
    run,
    results: () => [...latest.values()],
    async noteFailure(page, error) {
      const site = options.siteOf(page);
      // The check under way says it itself, as a check.
      if (site === null || page.href === checking) return;
      const verdict = classifyFailure(error, await options.context(site));
      const at = now().toISOString();
      record({ site, url: latest.get(site)?.url ?? null, ...verdict, detail: `a user's request at ${at}: ${verdict.detail}`, seconds: null, at, from: "requests" });
    },
    every(intervalS) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stopped = false;
      // Jitter, so instances started together do not knock on the platforms together.
      const jittered = (seconds: number) => seconds * 1000 * (0.75 + 0.5 * random());
      const schedule = (seconds: number) => {
        if (stopped) return;
        timer = setTimeout(() => {
          const next = () => schedule(intervalS);
          // A check classes every failure, so a run does not reject.
          const turn = pending === 0 ? run() : Promise.resolve();
          void turn.then(next, next);
        }, jittered(seconds));
      };
      // The first run soon after start, so a restart (after updating yt-dlp, say) shows at once.
      schedule(Math.min(intervalS, firstRunAfterS));
      return () => {
        stopped = true;
        clearTimeout(timer);
      };
    },
  };
}
