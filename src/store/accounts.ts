// Owner accounts. Emails are kept lower-case so that sign-in does not depend on case.
import type { Queryable } from "./db.ts";

export interface Account {
  id: number;
  email: string;
  createdAt: Date;
}

interface AccountRow {
  id: number | string;
  email: string;
  created_at: Date;
  password_hash: string;
}

const toAccount = (row: AccountRow): Account => ({ id: Number(row.id), email: row.email, createdAt: row.created_at });

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The new account, or null when an account with this email exists already. */
export async function createAccount(db: Queryable, email: string, passwordHash: string): Promise<Account | null> {
  const rows = await db.query<AccountRow>(
    `INSERT INTO accounts (email, password_hash) VALUES ($1, $2)
     ON CONFLICT (email) DO NOTHING
     RETURNING id, email, created_at, password_hash`,
    [normalizeEmail(email), passwordHash],
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

/** The account and its password hash, for sign-in. */
export async function findAccountByEmail(
  db: Queryable,
  email: string,
): Promise<(Account & { passwordHash: string }) | null> {
  const rows = await db.query<AccountRow>(
    "SELECT id, email, created_at, password_hash FROM accounts WHERE email = $1",
    [normalizeEmail(email)],
  );
  return rows[0] ? { ...toAccount(rows[0]), passwordHash: rows[0].password_hash } : null;
}

export async function listAccounts(db: Queryable): Promise<(Account & { keyCount: number })[]> {
  const rows = await db.query<AccountRow & { key_count: number }>(
    `SELECT a.id, a.email, a.created_at, a.password_hash, count(k.id)::integer AS key_count
       FROM accounts a LEFT JOIN api_keys k ON k.account_id = a.id AND k.deleted_at IS NULL
      GROUP BY a.id ORDER BY a.id`,
  );
  return rows.map((row) => ({ ...toAccount(row), keyCount: row.key_count }));
}

/** Sets the account's password hash; whether there was such an account. */
export async function setPasswordHash(db: Queryable, email: string, passwordHash: string): Promise<boolean> {
  const rows = await db.query("UPDATE accounts SET password_hash = $2 WHERE email = $1 RETURNING id", [
    normalizeEmail(email),
    passwordHash,
  ]);
  return rows.length > 0;
}

/** Deletes the account: its keys, their counts and its sessions go with it (ON DELETE CASCADE). */
export async function deleteAccount(db: Queryable, accountId: number): Promise<void> {
  await db.query("DELETE FROM accounts WHERE id = $1", [accountId]);
}
