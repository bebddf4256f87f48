// What the background's work (jobs' runs and watches') reads with: the service's own dependencies,
// with the job sources (their tools niced, JOB_NICENESS) and extractions that hold a slot of the
// key (as any call does) and one of the jobs' share of the instance's.
import { createAsk } from "../operations/ask.ts";
import type { DownloadDeps } from "../operations/download.ts";
import { createSlots, type SlotHolder, type Slots, slotsPerTier } from "../limits/slots.ts";
import type { Logger } from "../log.ts";
import type { SourceOf } from "../platforms/sources.ts";
import type { Db } from "../store/db.ts";

export interface JobSettings {
  /** Items this instance runs at once, of each tier (its lane of the queue); links it reads at once, too. */
  concurrency: number;
  /** The jobs' share of the instance's extraction slots (JOB_EXTRACTIONS), of every key together. */
  extractionSlots: number;
}

/** The settings of an instance's jobs, from its configuration. */
export const jobSettingsOf = (config: { JOB_CONCURRENCY: number; JOB_EXTRACTIONS: number }): JobSettings => ({
  concurrency: config.JOB_CONCURRENCY,
  extractionSlots: config.JOB_EXTRACTIONS,
});

/** Who hears of each settled item (`position`) and expansion (null): the webhooks' side, jobs/events.ts. */
export interface JobEvents {
  settled(jobId: string, position: number | null): Promise<void>;
}

export interface JobDeps extends DownloadDeps {
  /** The sources jobs read through: their tools run below interactive calls' (niced). */
  jobSources: SourceOf;
  db: Db;
  log: Logger;
  now: () => Date;
  settings: JobSettings;
  /** Told of each settled item and expansion: the webhooks' side (jobs/events.ts). */
  events?: JobEvents;
  /** ACCOUNT_COOKIES=on: the sources of an account that brought its own cookies (account-cookies/); null for none. */
  accountSources?: (accountId: number) => Promise<SourceOf | null>;
}

/** `deps` for the work of `holder`'s account: through its own cookies' sources where it brought some. */
export async function asAccount(deps: JobDeps, holder: SlotHolder): Promise<JobDeps> {
  const own = (await deps.accountSources?.(holder.accountId)) ?? null;
  return own === null ? deps : { ...deps, sources: own };
}

/** `deps` made once for an instance's jobs and watches together, to read in the background with. */
export function inBackground(deps: JobDeps): JobDeps {
  const extractions = withinShare(jobsShare(deps.settings), deps.extractions);
  return { ...deps, sources: deps.jobSources, extractions, ask: createAsk({ tools: deps.tools, extractions }) };
}

/** Slots for jobs' extractions: the jobs' share of the instance's, by the tiers' page-mode caps. */
function jobsShare(settings: JobSettings): Slots {
  return createSlots({
    perTier: slotsPerTier,
    server: settings.extractionSlots,
    code: "too_many_extractions",
    what: "extractions of jobs",
  });
}

/** A slot of `share` and one of `all` together, or neither. */
function withinShare(share: Slots, all: Slots): Slots {
  return {
    acquire(holder) {
      const fromShare = share.acquire(holder);
      try {
        const fromAll = all.acquire(holder);
        return () => {
          fromAll();
          fromShare();
        };
      } catch (error) {
        fromShare();
        throw error;
      }
    },
  };
}
