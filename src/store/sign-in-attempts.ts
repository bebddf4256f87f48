// Sign-in attempts in a sliding window, kept in the store so that every instance sharing it
// enforces one limit. Three counts: per client (guessing across many accounts), per client and
// account (guessing one password), and per account from everywhere, a ceiling set high enough that
// one stranger cannot reach it, so the owner is not locked out by someone else's wrong guesses.
// Unknown emails are counted like known ones.
import type { Db } from "./db.ts";
import { normalizeEmail } from "./accounts.ts";

export interface SignInLimits {
  perClient: number;
  perClientAndAccount: number;
  perAccount: number;
  windowMs: number;
}

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAt: Date; limit: "client" | "client and account" | "account" };

interface Counts {
  client_count: number;
  client_oldest: Date | null;
  pair_count: number;
  pair_oldest: Date | null;
  account_count: number;
  account_oldest: Date | null;
}

/** Counts one attempt, or refuses it with the time a counted attempt leaves the window that is full. */
export async function takeSignInAttempt(
  db: Db,
  attempt: { email: string; client: string },
  now: Date,
  limits: SignInLimits,
): Promise<AttemptVerdict> {
  const email = normalizeEmail(attempt.email);
  const since = new Date(now.getTime() - limits.windowMs);
  return db.transaction(async (tx) => {
    // Attempts take turns, across instances, so that none slips past a count. Sign-ins are few,
    // and the password check runs after this transaction, so one lock for all of them is cheap.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('sign-in'))");
    await tx.query("DELETE FROM sign_in_attempts WHERE at <= $1", [since]);
    const [counts] = await tx.query<Counts>(
      `SELECT count(*) FILTER (WHERE client = $1)::integer AS client_count,
              min(at) FILTER (WHERE client = $1) AS client_oldest,
              count(*) FILTER (WHERE client = $1 AND email = $2)::integer AS pair_count,
              min(at) FILTER (WHERE client = $1 AND email = $2) AS pair_oldest,
              count(*) FILTER (WHERE email = $2)::integer AS account_count,
              min(at) FILTER (WHERE email = $2) AS account_oldest
         FROM sign_in_attempts WHERE client = $1 OR email = $2`,
      [attempt.client, email],
    );
    const refusal = refusalOf(counts!, limits);
    if (refusal) return refusal;
    await tx.query("INSERT INTO sign_in_attempts (client, email, at) VALUES ($1, $2, $3)", [attempt.client, email, now]);
    return { allowed: true };
  });
}

/** The full window that frees last, if any is full. Refused attempts are not counted, so a full count is at its limit. */
function refusalOf(counts: Counts, limits: SignInLimits): AttemptVerdict | undefined {
  const full = [
    { limit: "client and account" as const, count: counts.pair_count, oldest: counts.pair_oldest, max: limits.perClientAndAccount },
    { limit: "client" as const, count: counts.client_count, oldest: counts.client_oldest, max: limits.perClient },
    { limit: "account" as const, count: counts.account_count, oldest: counts.account_oldest, max: limits.perAccount },
  ].filter((window) => window.count >= window.max);
  if (full.length === 0) return undefined;
  const last = full.reduce((a, b) => (b.oldest!.getTime() > a.oldest!.getTime() ? b : a));
  return { allowed: false, limit: last.limit, retryAt: new Date(last.oldest!.getTime() + limits.windowMs) };
}

/** After a successful sign-in, forgets that client's attempts on that account; the other counts stand. */
export async function clearSignInAttempts(db: Db, attempt: { email: string; client: string }): Promise<void> {
  await db.query("DELETE FROM sign_in_attempts WHERE client = $1 AND email = $2", [attempt.client, normalizeEmail(attempt.email)]);
}
