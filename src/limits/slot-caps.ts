// How many of each kind of work an instance runs at once when the operator does not say: sized by
// what one costs, not by how long it waits. An extraction spends ~40 ms of CPU and then sleeps on
// the platform's answer (0.5-2 s), so its cap is what the memory allows; a stream copy costs a
// few percent of a core; an MP3 encode a whole one while its source is fast.

/**
 * PSS of one extraction child at its peak (a fork of the warm extraction host reading a page; its
 * own program is more): ~20 MB private in its last moments, ~14 MB while it waits on the page
 * (`bench/host-forks.py`, docs/benchmarks.md). Budgeted at the peak, since the children's peaks
 * may meet.
 */
export const EXTRACTION_PSS_MB = 20;
/** PSS of one ffmpeg stream copy (`-c copy`), measured with 8 at once (alone: 47 MB, its libraries unshared). */
export const REMUX_PSS_MB = 16;
/** Stream copies per core: each takes a few percent of one, so 16 leave room for the rest. */
export const REMUXES_PER_CPU = 16;
/**
 * Jobs' extractions per core. Each mostly waits on its page, but its tool's CPU is what an
 * interactive call's extraction waits behind: jobs are sized by the cores, not by the memory.
 */
export const JOB_EXTRACTIONS_PER_CPU = 4;

export interface SlotSettings {
  MEMORY_BUDGET_MB: number;
  MAX_EXTRACTIONS?: number | undefined;
  MAX_REMUXES?: number | undefined;
  MAX_ENCODES?: number | undefined;
  JOB_EXTRACTIONS?: number | undefined;
  /** The single cap of earlier versions, on page-mode downloads; still the default of the two download caps. */
  MAX_PAGE_DOWNLOADS?: number | undefined;
}

export interface SlotCaps {
  MAX_EXTRACTIONS: number;
  MAX_REMUXES: number;
  MAX_ENCODES: number;
  JOB_EXTRACTIONS: number;
}

/**
 * The caps, each as set or from its default: extractions take up to half of the memory budget,
 * stream copies up to a quarter (the rest is the service's, the host's, the store's and the
 * encodes'), and encodes one per core; jobs' extractions take a few per core, never more than half
 * of the extractions, so that interactive calls keep the rest.
 */
export function slotCaps(settings: SlotSettings, cpus: number): SlotCaps {
  const budgetMb = settings.MEMORY_BUDGET_MB;
  const extractions = settings.MAX_EXTRACTIONS ?? Math.max(2, Math.floor(budgetMb / 2 / EXTRACTION_PSS_MB));
  return {
    MAX_EXTRACTIONS: extractions,
    JOB_EXTRACTIONS: settings.JOB_EXTRACTIONS ??
      Math.max(1, Math.min(JOB_EXTRACTIONS_PER_CPU * cpus, Math.floor(extractions / 2))),
    MAX_REMUXES: settings.MAX_REMUXES ?? settings.MAX_PAGE_DOWNLOADS ??
      Math.max(2, Math.min(REMUXES_PER_CPU * cpus, Math.floor(budgetMb / 4 / REMUX_PSS_MB))),
    MAX_ENCODES: settings.MAX_ENCODES ?? settings.MAX_PAGE_DOWNLOADS ?? cpus,
  };
}
