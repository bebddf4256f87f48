// SUPPORTED_SITES=all: which extractor of the installed yt-dlp or gallery-dl claims a link that
// is on no row of the table. One Python process (extraction-host/claims.py, run by the
// interpreter yt-dlp's own program names) answers every look-up, kept warm: it takes most of a
// second to compile every extractor's pattern, then a millisecond or so a link. Nothing of it
// reaches the network, so a look-up needs no slot.
import claimsProgram from "../../extraction-host/claims.py?raw";
import { ApiError } from "../http/problem.ts";
import { spawnWatched } from "../processes/child-stream.ts";
import type { ProcessHost, SpawnedChild } from "../processes/process-host.ts";

/** The extractors that claim a link: yt-dlp's key (`TedTalk`) and gallery-dl's category (`tedtalk`); null for none. */
export interface Claim {
  ytdlp: string | null;
  gallerydl: string | null;
}

export interface ExtractorClaims {
  claimOf(url: URL): Promise<Claim>;
  /** Ends the process; a later look-up starts a new one. */
  close(): void;
}

export interface ExtractorClaimsOptions {
  processes: ProcessHost;
  /** The interpreter (and its one argument) of yt-dlp's program; null when it has none (a standalone build). */
  interpreter: () => Promise<string[] | null>;
  /** Bound on one look-up, the first one's start-up included. */
  timeoutMs: number;
}

interface Waiting {
  resolve(claim: Claim): void;
  reject(error: Error): void;
}

/** A running claims process and the look-ups it has yet to answer, in the order they were sent. */
interface Running {
  child: SpawnedChild;
  waiting: Waiting[];
}

const stopped = () =>
  new ApiError("tool_exited", "The look-up of the link's extractor stopped unexpectedly; try again.");

export function createExtractorClaims(options: ExtractorClaimsOptions): ExtractorClaims {
  let running: Promise<Running> | null = null;
  let current: Running | null = null;

  async function start(): Promise<Running> {
    const interpreter = await options.interpreter();
    if (interpreter === null) {
      throw new ApiError(
        "tool_missing",
        "SUPPORTED_SITES=all needs yt-dlp as a Python program, to ask its extractors which one claims a link; this yt-dlp is not one.",
      );
    }
    const [command, ...args] = interpreter;
    const child = spawnWatched(options.processes, command!, [...args, "-c", claimsProgram], true);
    const self: Running = { child, waiting: [] };
    current = self;
    const decoder = new TextDecoder();
    let partial = "";
    child.onStdout((chunk) => {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = lines.pop()!;
      for (const line of lines) self.waiting.shift()?.resolve(JSON.parse(line) as Claim);
    });
    const ended = () => {
      if (current === self) [current, running] = [null, null];
      for (const waiting of self.waiting.splice(0)) waiting.reject(stopped());
    };
    child.onClose(ended);
    child.onError(ended);
    return self;
  }

  async function claimOf(url: URL): Promise<Claim> {
    const pending = (running ??= start());
    pending.catch(() => {
      if (running === pending) running = null;
    });
    const self = await pending;
    return new Promise<Claim>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A process that does not answer is ended: the look-ups behind this one would wait as long.
        self.child.signalGroup("SIGKILL");
        reject(new ApiError("upstream_timeout", "Finding the link's extractor took too long; try again."));
      }, options.timeoutMs);
      const settle = <T>(then: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        then(value);
      };
      self.waiting.push({ resolve: settle(resolve), reject: settle(reject) });
      // A link holds no line break once parsed (URL encodes them), so one line is one link.
      self.child.writeStdin(`${url.href}\n`);
    });
  }

  return {
    claimOf,
    close() {
      current?.child.endStdin("");
      [current, running] = [null, null];
    },
  };
}
