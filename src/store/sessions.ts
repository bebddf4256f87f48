// Sessions of the owner's page. The cookie holds a random token; the store keeps its SHA-256,
// so neither a database copy nor a log of queries can be replayed as a cookie.
import { randomBytes, sha256Hex, toBase64Url } from "../util/bytes.ts";
import type { Queryable } from "./db.ts";

export const SESSION_TTL_MS = 7 * 86_400_000;

export interface Session {
  accountId: number;
  email: string;
  expiresAt: Date;
}

/** Starts a session and returns the token for the cookie; also drops sessions that have ended. */
export async function createSession(
  db: Queryable,
  accountId: number,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const token = toBase64Url(randomBytes(32));
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.query("DELETE FROM sessions WHERE expires_at <= $1", [now]);
  await db.query("INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)", [
    await sha256Hex(token),
    accountId,
    now,
    expiresAt,
  ]);
  return { token, expiresAt };
}

/** The live session a token refers to, or null when it is unknown or has ended. */
export async function findSession(db: Queryable, token: string, now: Date): Promise<Session | null> {
  const rows = await db.query<{ account_id: number | string; email: string; expires_at: Date }>(
    `SELECT s.account_id, a.email, s.expires_at
       FROM sessions s JOIN accounts a ON a.id = s.account_id
      WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [await sha256Hex(token), now],
  );
  const row = rows[0];
  return row ? { accountId: Number(row.account_id), email: row.email, expiresAt: row.expires_at } : null;
}

export async function deleteSession(db: Queryable, token: string): Promise<void> {
  await db.query("DELETE FROM sessions WHERE token_hash = $1", [await sha256Hex(token)]);
}

/**
 * Ends the account's sessions, but the one of `keepToken` when given: after a password change the
 * sessions signed in with the old password end.
 */
export async function endSessions(db: Queryable, accountId: number, keepToken?: string): Promise<void> {
  const keep = keepToken === undefined ? null : await sha256Hex(keepToken);
  await db.query("DELETE FROM sessions WHERE account_id = $1 AND token_hash IS DISTINCT FROM $2", [accountId, keep]);
}
