// Which of a job's ends and failures are to be told to its owner's webhooks. The claim is one
// statement, so of two instances that settle a job's last items at once exactly one announces it.
import type { Queryable } from "../store/db.ts";

/** Claims the announcement of the job's end: true once, after the job completed or failed, for the one caller that set it. */
export async function claimJobEnd(db: Queryable, jobId: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET announced_at = $2
     WHERE id = $1 AND status IN ('completed', 'failed') AND announced_at IS NULL RETURNING id`,
    [jobId, now],
  );
  return rows.length > 0;
}
