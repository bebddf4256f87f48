// The link secret (migration 007): read for every signed link made or checked, so that a rotation
// reaches every instance sharing the store at once.
import { randomBytes, toBase64Url } from "../util/bytes.ts";
import type { Queryable } from "./db.ts";

export async function readLinkSecret(db: Queryable): Promise<string> {
  const [row] = await db.query<{ secret: string }>("SELECT secret FROM link_secret");
  return row!.secret;
}

/** A new secret: every link signed before is refused from now on. */
export async function rotateLinkSecret(db: Queryable, now: Date): Promise<void> {
  await db.query("UPDATE link_secret SET secret = $1, rotated_at = $2", [toBase64Url(randomBytes(32)), now]);
}
