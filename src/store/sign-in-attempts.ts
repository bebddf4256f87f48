// Sign-in attempts per email in a sliding window, kept in the store so that every instance
// sharing it enforces one limit. Unknown emails are counted like known ones.
import type { Db } from "./db.ts";
import { normalizeEmail } from "./accounts.ts";

export interface AttemptLimit {
  max: number;
  windowMs: number;
}

/** Counts one attempt, or refuses it with the time the oldest counted attempt leaves the window. */
export async function takeSignInAttempt(
  db: Db,
  email: string,
  now: Date,
  limit: AttemptLimit,
): Promise<{ allowed: true } | { allowed: false; retryAt: Date }> {
  const key = normalizeEmail(email);
  const since = new Date(now.getTime() - limit.windowMs);
  return db.transaction(async (tx) => {
    // Concurrent attempts for one email take turns, so none slips past the count.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('sign-in:' || $1))", [key]);
    await tx.query("DELETE FROM sign_in_attempts WHERE at <= $1", [since]);
    const [row] = await tx.query<{ count: number; oldest: Date | null }>(
      "SELECT count(*)::integer AS count, min(at) AS oldest FROM sign_in_attempts WHERE email = $1",
      [key],
    );
    if (row && row.count >= limit.max) return { allowed: false, retryAt: new Date(row.oldest!.getTime() + limit.windowMs) };
    await tx.query("INSERT INTO sign_in_attempts (email, at) VALUES ($1, $2)", [key, now]);
    return { allowed: true };
  });
}

/** Forgets the attempts for an email after a successful sign-in. */
export async function clearSignInAttempts(db: Db, email: string): Promise<void> {
  await db.query("DELETE FROM sign_in_attempts WHERE email = $1", [normalizeEmail(email)]);
}
