// API key records and the per-request admission (quota and burst), all in SQL so that every
// process sharing the database sees one truth.
import { generateKey } from "../auth/api-key.ts";
import type { Queryable } from "./db.ts";

export const tiers = ["FREE", "PRO", "GOLD"] as const;
export type Tier = (typeof tiers)[number];
export type KeyCondition = "usable" | "passive" | "expired";

export interface ApiKeyInfo {
  id: string;
  accountId: number;
  email: string;
  name: string;
  displayPrefix: string;
  tier: Tier;
  condition: KeyCondition;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Requests counted in the last 24 h, and the tier's daily limit. */
  used24h: number;
  dailyLimit: number;
}

interface KeyRow {
  id: string;
  account_id: number | string;
  email: string;
  name: string;
  display_prefix: string;
  tier: Tier;
  passive: boolean;
  expires_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
  used_24h: number;
  daily_limit: number;
}

export function conditionOf(key: { passive: boolean; expiresAt: Date | null }, now: Date): KeyCondition {
  if (key.passive) return "passive";
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return "expired";
  return "usable";
}

const toInfo = (row: KeyRow, now: Date): ApiKeyInfo => ({
  id: row.id,
  accountId: Number(row.account_id),
  email: row.email,
  name: row.name,
  displayPrefix: row.display_prefix,
  tier: row.tier,
  condition: conditionOf({ passive: row.passive, expiresAt: row.expires_at }, now),
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  used24h: row.used_24h,
  dailyLimit: row.daily_limit,
});

export interface CreateKeyInput {
  accountId: number;
  name: string;
  tier: Tier;
  /** Days until the key expires; null for never. */
  expiresInDays: number | null;
  now: Date;
}

/** Creates a key and returns its record with the plain key, which is never available again. */
export async function createApiKey(db: Queryable, input: CreateKeyInput): Promise<{ key: ApiKeyInfo; plain: string }> {
  const { plain, hash, displayPrefix } = await generateKey();
  const expiresAt = input.expiresInDays === null
    ? null
    : new Date(input.now.getTime() + input.expiresInDays * 86_400_000);
  const id = crypto.randomUUID();
  await db.query(
    `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, tier, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, input.accountId, input.name, hash, displayPrefix, input.tier, expiresAt, input.now],
  );
  const [key] = await listApiKeys(db, { now: input.now, id });
  return { key: key!, plain };
}

export async function listApiKeys(
  db: Queryable,
  filter: { now: Date; accountId?: number; email?: string; id?: string },
): Promise<ApiKeyInfo[]> {
  const rows = await db.query<KeyRow>(
    `SELECT k.id, k.account_id, a.email, k.name, k.display_prefix, k.tier, k.passive, k.expires_at,
            k.created_at, k.last_used_at, t.daily_limit,
            coalesce((SELECT sum(u.count) FROM usage_minutes u
                       WHERE u.api_key_id = k.id
                         AND u.minute > date_trunc('minute', $1::timestamptz) - interval '24 hours'), 0)::integer AS used_24h
       FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN tiers t ON t.name = k.tier
      WHERE k.deleted_at IS NULL
        AND ($2::bigint IS NULL OR k.account_id = $2)
        AND ($3::text IS NULL OR a.email = lower($3))
        AND ($4::text IS NULL OR k.id = $4)
      ORDER BY k.created_at, k.id`,
    [filter.now, filter.accountId ?? null, filter.email ?? null, filter.id ?? null],
  );
  return rows.map((row) => toInfo(row, filter.now));
}

/** The changes an owner or the operator can make. `accountId` limits the change to that owner's keys. */
export type KeyChange = { passive: boolean } | { tier: Tier };

/** Whether there was such a key to change. */
export async function updateApiKey(db: Queryable, id: string, change: KeyChange, accountId?: number): Promise<boolean> {
  const [column, value] = "tier" in change ? ["tier", change.tier] : ["passive", change.passive];
  const rows = await db.query(
    `UPDATE api_keys SET ${column} = $2 WHERE id = $1 AND deleted_at IS NULL AND ($3::bigint IS NULL OR account_id = $3) RETURNING id`,
    [id, value, accountId ?? null],
  );
  return rows.length > 0;
}

/**
 * Deletes a key: it stops working at once and leaves every list, but its row and its counted
 * requests stay until they have left the 24 h window (see keysHeld). Whether there was such a key.
 */
export async function deleteApiKey(db: Queryable, id: string, now: Date, accountId?: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE api_keys SET deleted_at = $3, key_hash = 'deleted:' || id, passive = true
      WHERE id = $1 AND deleted_at IS NULL AND ($2::bigint IS NULL OR account_id = $2) RETURNING id`,
    [id, accountId ?? null, now],
  );
  return rows.length > 0;
}

/**
 * How many keys the account holds: its keys, and its deleted keys whose counted requests are still
 * in the 24 h window. Deleted keys past that are removed here. So an account spends at most its
 * key cap times a tier's daily limit in any 24 h, however often it deletes and creates keys.
 */
export async function keysHeld(db: Queryable, accountId: number, now: Date): Promise<number> {
  await db.query(
    `DELETE FROM api_keys k
      WHERE k.account_id = $1 AND k.deleted_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM usage_minutes u
                         WHERE u.api_key_id = k.id AND u.minute > date_trunc('minute', $2::timestamptz) - interval '24 hours')`,
    [accountId, now],
  );
  const [row] = await db.query<{ held: number }>(
    "SELECT count(*)::integer AS held FROM api_keys WHERE account_id = $1",
    [accountId],
  );
  return row!.held;
}

export type AdmitOutcome = "unknown" | "passive" | "expired" | "quota" | "burst" | "admitted";

export interface Admission {
  outcome: AdmitOutcome;
  /** Absent when the key is unknown. */
  key?: AdmittedKey;
}

/** A known key with its limits and counts as admitRequest left them. */
export interface AdmittedKey {
  id: string;
  /** The account that owns the key: concurrent work is capped per account as well as per key. */
  accountId: number;
  tier: Tier;
  dailyLimit: number;
  burstLimit: number;
  dayCount: number;
  burstCount: number;
  dayFreesAt: Date | null;
  burstFreesAt: Date | null;
}

interface AdmitRow {
  outcome: AdmitOutcome;
  api_key_id: string | null;
  account_id: number | string | null;
  tier: Tier | null;
  daily_limit: number | null;
  burst_limit: number | null;
  day_count: number | null;
  burst_count: number | null;
  day_frees_at: Date | null;
  burst_frees_at: Date | null;
}

/**
 * Looks the key up and counts the request when it may be made; see admit_request in the
 * migrations (012). `pastDay`: the call is one a key may make once its day is spent (reading or
 * cancelling its own jobs), admitted then within its burst and counted there alone.
 */
export function admitRequest(db: Queryable, keyHash: string, now: Date, pastDay = false): Promise<Admission> {
  return admit(db, { keyHash, keyId: null }, now, pastDay);
}

/** admitRequest for the key of a signed link, which names the key by its id; a deleted key is unknown. */
export function admitKeyById(db: Queryable, keyId: string, now: Date, pastDay = false): Promise<Admission> {
  return admit(db, { keyHash: null, keyId }, now, pastDay);
}

async function admit(
  db: Queryable,
  by: { keyHash: string | null; keyId: string | null },
  now: Date,
  pastDay: boolean,
): Promise<Admission> {
  // The account is read beside the function's answer, in the same round trip: a key never changes account.
  const [row] = await db.query<AdmitRow>(
    `SELECT r.*, k.account_id
       FROM admit_request(coalesce($1, (SELECT key_hash FROM api_keys WHERE id = $3 AND deleted_at IS NULL)), $2, $4) r
       LEFT JOIN api_keys k ON k.id = r.api_key_id`,
    [by.keyHash, now, by.keyId, pastDay],
  );
  if (!row || row.outcome === "unknown" || row.api_key_id === null) return { outcome: "unknown" };
  return {
    outcome: row.outcome,
    key: {
      id: row.api_key_id,
      accountId: Number(row.account_id),
      tier: row.tier!,
      dailyLimit: row.daily_limit!,
      burstLimit: row.burst_limit!,
      dayCount: row.day_count!,
      burstCount: row.burst_count!,
      dayFreesAt: row.day_frees_at,
      burstFreesAt: row.burst_frees_at,
    },
  };
}

/** Takes back the request admitRequest counted at `at`: it was refused with 429 after all. */
export async function refundRequest(db: Queryable, keyId: string, at: Date): Promise<void> {
  await db.query("SELECT refund_request($1, $2)", [keyId, at]);
}
