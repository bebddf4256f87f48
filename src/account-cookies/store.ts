// An owner's own cookie files (migration 016): kept sealed, one per platform; the listing carries
// no content, and only own-jar.ts reads the sealed file back, to hand it to the account's calls.
import type { Queryable } from "../store/db.ts";
import { cookieKeyOf, seal, unseal } from "./seal.ts";

/** What the owner's page shows of a file: never its content. */
export interface CookiesListed {
  platform: string;
  uploadedAt: Date;
}

/** Seals `content` for the account and platform and keeps it, in place of the one it had. */
export async function keepCookies(
  db: Queryable,
  file: { accountId: number; platform: string; content: Uint8Array; now: Date },
): Promise<void> {
  const sealed = await seal(await cookieKeyOf(db), file.accountId, file.platform, file.content);
  await db.query(
    `INSERT INTO account_cookies (account_id, platform, sealed, uploaded_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id, platform) DO UPDATE SET sealed = EXCLUDED.sealed, uploaded_at = EXCLUDED.uploaded_at`,
    [file.accountId, file.platform, sealed, file.now],
  );
}

export async function cookiesListed(db: Queryable, accountId: number): Promise<CookiesListed[]> {
  const rows = await db.query<{ platform: string; uploaded_at: Date }>(
    "SELECT platform, uploaded_at FROM account_cookies WHERE account_id = $1 ORDER BY platform",
    [accountId],
  );
  return rows.map((row) => ({ platform: row.platform, uploadedAt: new Date(row.uploaded_at) }));
}

/** False when the account held no file for the platform. */
export async function deleteCookies(db: Queryable, accountId: number, platform: string): Promise<boolean> {
  const rows = await db.query("DELETE FROM account_cookies WHERE account_id = $1 AND platform = $2 RETURNING 1", [
    accountId,
    platform,
  ]);
  return rows.length > 0;
}

/** The account's files, as `version` (what changes with any upload or deletion) and a way to open them. */
export async function sealedCookiesOf(
  db: Queryable,
  accountId: number,
): Promise<{ version: string; open(): Promise<Map<string, Uint8Array>> } | null> {
  const rows = await db.query<{ platform: string; sealed: string }>(
    "SELECT platform, sealed FROM account_cookies WHERE account_id = $1 ORDER BY platform",
    [accountId],
  );
  if (rows.length === 0) return null;
  return {
    // A seal's nonce is new for every upload: it tells one file from the one it replaced.
    version: rows.map((row) => `${row.platform}@${row.sealed.slice(0, 16)}`).join(","),
    async open() {
      const key = await cookieKeyOf(db);
      const opened = await Promise.all(
        rows.map(async (row) => [row.platform, await unseal(key, accountId, row.platform, row.sealed)] as const),
      );
      return new Map(opened);
    },
  };
}
