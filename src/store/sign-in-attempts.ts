// Sign-in attempts in a sliding window, kept in the store so that every instance sharing it
// enforces one limit. Three counts: per client (guessing across many accounts), per client and
// account (guessing one password), and per account from everywhere, a ceiling that only many
// clients together reach. The ceiling holds for the clients that have tried the account in the
// window: it slows guessers, not the owner. A client that has not may still try once past it, but
// only once per network (an IPv4 /24, an IPv6 /48), so that a guesser holding a block of addresses
// gains one more guess per block, not one per address, while the owner, from anywhere else, gets in.
// Unknown emails are counted like known ones.
import type { Db } from "./db.ts";
import { normalizeEmail } from "./accounts.ts";

export interface SignInLimits {
  perClient: number;
  perClientAndAccount: number;
  perAccount: number;
  windowMs: number;
}

export type AttemptVerdict = { allowed: true } | {
  allowed: false;
  retryAt: Date;
  limit: "client" | "client and account" | "account";
};

interface Counts {
  client_count: number;
  client_oldest: Date | null;
  pair_count: number;
  pair_oldest: Date | null;
  account_count: number;
  account_oldest: Date | null;
  past_ceiling_count: number;
  past_ceiling_oldest: Date | null;
}

/** A limit's count in the window, the time its oldest entry was counted, and its maximum. */
interface Window {
  limit: Exclude<AttemptVerdict, { allowed: true }>["limit"];
  count: number;
  oldest: Date | null;
  max: number;
}

/** Counts one attempt, or refuses it with the time a counted attempt leaves the window that is full. */
export async function takeSignInAttempt(
  db: Db,
  /** `client` is what one limit counts (an IPv4 address, an IPv6 /64), `network` the block around it. */
  attempt: { email: string; client: string; network: string },
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
              count(*) FILTER (WHERE email = $2 AND past_ceiling_from IS NULL)::integer AS account_count,
              min(at) FILTER (WHERE email = $2 AND past_ceiling_from IS NULL) AS account_oldest,
              count(*) FILTER (WHERE email = $2 AND past_ceiling_from = $3)::integer AS past_ceiling_count,
              min(at) FILTER (WHERE email = $2 AND past_ceiling_from = $3) AS past_ceiling_oldest
         FROM sign_in_attempts WHERE client = $1 OR email = $2`,
      [attempt.client, email, attempt.network],
    );
    const { refusal, pastCeiling } = judge(counts!, limits);
    if (refusal) return refusal;
    await tx.query("INSERT INTO sign_in_attempts (client, email, at, past_ceiling_from) VALUES ($1, $2, $3, $4)", [
      attempt.client,
      email,
      now,
      pastCeiling ? attempt.network : null,
    ]);
    return { allowed: true };
  });
}

/**
 * Whether an attempt may go on, and whether it goes past the account's ceiling. Refused attempts
 * are not counted, so a full count is at its limit and the entry that frees it is its oldest.
 */
function judge(counts: Counts, limits: SignInLimits): { refusal?: AttemptVerdict; pastCeiling: boolean } {
  const pair: Window = {
    limit: "client and account",
    count: counts.pair_count,
    oldest: counts.pair_oldest,
    max: limits.perClientAndAccount,
  };
  const client: Window = {
    limit: "client",
    count: counts.client_count,
    oldest: counts.client_oldest,
    max: limits.perClient,
  };
  const account: Window = {
    limit: "account",
    count: counts.account_count,
    oldest: counts.account_oldest,
    max: limits.perAccount,
  };
  const full = [pair, client].filter(isFull);
  const pastCeiling = isFull(account);
  if (pastCeiling) {
    const triedHere = counts.pair_count > 0;
    const network: Window = {
      limit: "account",
      count: counts.past_ceiling_count,
      oldest: counts.past_ceiling_oldest,
      max: 1,
    };
    // A client that has tried waits for the ceiling; a fresh one only when its network had its
    // attempt past it, and then until either frees.
    if (triedHere) full.push(account);
    else if (isFull(network)) full.push(network.oldest!.getTime() < account.oldest!.getTime() ? network : account);
  }
  if (full.length === 0) return { pastCeiling };
  // Every full window must free, so the one that frees last says when to come back.
  const last = full.reduce((a, b) => (b.oldest!.getTime() > a.oldest!.getTime() ? b : a));
  return {
    pastCeiling,
    refusal: { allowed: false, limit: last.limit, retryAt: new Date(last.oldest!.getTime() + limits.windowMs) },
  };
}

const isFull = (window: Window) => window.count >= window.max;

/** After a successful sign-in, forgets that client's attempts on that account; the other counts stand. */
export async function clearSignInAttempts(db: Db, attempt: { email: string; client: string }): Promise<void> {
  await db.query("DELETE FROM sign_in_attempts WHERE client = $1 AND email = $2", [
    attempt.client,
    normalizeEmail(attempt.email),
  ]);
}

/**
 * Gives back an attempt counted at `at` whose password was never checked (the server was too busy
 * to), so that a refusal of the server's own making does not bring a limit nearer.
 */
export async function returnSignInAttempt(db: Db, attempt: { email: string; client: string }, at: Date): Promise<void> {
  await db.query(
    `DELETE FROM sign_in_attempts WHERE ctid IN (
       SELECT ctid FROM sign_in_attempts WHERE client = $1 AND email = $2 AND at = $3 LIMIT 1)`,
    [attempt.client, normalizeEmail(attempt.email), at],
  );
}
