// Sign-ups per client in a sliding window, kept in the store so that every instance sharing it
// enforces one limit. Each one costs a password hash and brings an account that may hold keys
// of its own, so one client may not make accounts by the dozen.
import type { Db } from "./db.ts";

export interface SignUpLimit {
  perClient: number;
  windowMs: number;
}

export type SignUpVerdict = { allowed: true } | { allowed: false; retryAt: Date };

/** Counts one sign-up of `client`, or refuses it with the time a counted one leaves the window. */
export async function takeSignUp(db: Db, client: string, now: Date, limit: SignUpLimit): Promise<SignUpVerdict> {
  const since = new Date(now.getTime() - limit.windowMs);
  return db.transaction(async (tx) => {
    // As for sign-ins: sign-ups take turns across instances, so that none slips past the count.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('sign-up'))");
    await tx.query("DELETE FROM sign_ups WHERE at <= $1", [since]);
    const [counted] = await tx.query<{ count: number; oldest: Date | null }>(
      "SELECT count(*)::integer AS count, min(at) AS oldest FROM sign_ups WHERE client = $1",
      [client],
    );
    // Refused sign-ups are not counted, so a full count is at the limit and its oldest frees one.
    if (counted!.count >= limit.perClient) {
      return { allowed: false, retryAt: new Date(counted!.oldest!.getTime() + limit.windowMs) };
    }
    await tx.query("INSERT INTO sign_ups (client, at) VALUES ($1, $2)", [client, now]);
    return { allowed: true };
  });
}
