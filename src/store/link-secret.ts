// The link secret (migrations 007 and 008): read for every signed link made or checked, so that a
// rotation reaches every instance sharing the store at once. Each store makes its own at its first
// start, never a migration: the migrations also run at build time, into the template every new
// embedded store is copied from (pglite-template.ts), and a secret made there is every store's.
import { randomBytes, toBase64Url } from "../util/bytes.ts";
import type { Queryable } from "./db.ts";

const newSecret = () => toBase64Url(randomBytes(32));

/** What a start did: made the store's first secret, replaced one a migration made, or kept the store's own. */
export type LinkSecretStart = "made" | "replaced" | "kept";

/**
 * At a store's start: a secret of its own when it has none, or when it holds the one migration 007
 * made before version 8 (the build's, which anyone with the same build can read). Instances that
 * start together settle on one: the update and the insert each take the row or find it taken.
 */
export async function startLinkSecret(db: Queryable, now: Date): Promise<LinkSecretStart> {
  const replaced = await db.query(
    "UPDATE link_secret SET secret = $1, rotated_at = $2, store_made = true WHERE NOT store_made RETURNING 1",
    [newSecret(), now],
  );
  if (replaced.length > 0) return "replaced";
  const made = await db.query(
    "INSERT INTO link_secret (secret, rotated_at, store_made) VALUES ($1, $2, true) ON CONFLICT (only_row) DO NOTHING RETURNING 1",
    [newSecret(), now],
  );
  return made.length > 0 ? "made" : "kept";
}

/** The store's own secret; made here when the store was opened without the service's start (a test, a tool). */
export async function readLinkSecret(db: Queryable): Promise<string> {
  const read = () => db.query<{ secret: string }>("SELECT secret FROM link_secret WHERE store_made");
  const [row] = await read();
  if (row) return row.secret;
  await startLinkSecret(db, new Date());
  return (await read())[0]!.secret;
}

/** A new secret: every link signed before is refused from now on. */
export async function rotateLinkSecret(db: Queryable, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO link_secret (secret, rotated_at, store_made) VALUES ($1, $2, true)
       ON CONFLICT (only_row) DO UPDATE SET secret = EXCLUDED.secret, rotated_at = EXCLUDED.rotated_at, store_made = true`,
    [newSecret(), now],
  );
}
