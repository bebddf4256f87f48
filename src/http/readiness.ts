// GET /readyz: whether this instance can serve, for a load balancer or orchestrator to route by.
// /healthz answers for the process and its store; readiness runs every named check (the store,
// and the media tools page mode needs) and answers 503 while any of them fails.
import { errorText } from "../log.ts";
import { withTimeout } from "../util/timeout.ts";
import { json } from "./json-response.ts";

export interface ReadinessCheck {
  /** Shown in the answer, e.g. "store" or "ffmpeg". */
  name: string;
  /**
   * Resolves when the dependency is usable, with a warning when it is usable but needs the
   * operator's attention (readiness still passes), or with what it found besides; rejects with
   * the reason when it is not usable.
   */
  check: () => Promise<void | string | null | { warning?: string; detail?: string }>;
}

export interface CheckResult {
  ok: boolean;
  /** The failure's message; an operator reads it, so it never holds secrets or user data. */
  error?: string;
  /** Usable, but the operator should look (for example a yt-dlp past its age). */
  warning?: string;
  /** What the check found, for the operator (for example what the extraction host runs). */
  detail?: string;
}

/** Runs every check at once, each bounded by timeoutMs. */
export async function runReadinessChecks(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
): Promise<Record<string, CheckResult>> {
  const results = await Promise.all(
    checks.map(async ({ name, check }): Promise<[string, CheckResult]> => {
      try {
        const found = await withTimeout(check(), timeoutMs, `no answer within ${timeoutMs} ms`);
        const { warning, detail } = typeof found === "object" && found !== null
          ? found
          : { warning: found ?? undefined, detail: undefined };
        return [name, { ok: true, ...(warning ? { warning } : {}), ...(detail ? { detail } : {}) }];
      } catch (error) {
        return [name, { ok: false, error: errorText(error) }];
      }
    }),
  );
  return Object.fromEntries(results);
}

export async function readinessResponse(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<Response> {
  const results = await runReadinessChecks(checks, timeoutMs);
  const ready = Object.values(results).every((result) => result.ok);
  return json({ status: ready ? "ready" : "unavailable", checks: results }, {
    status: ready ? 200 : 503,
    headers: { "cache-control": "no-store" },
  });
}
