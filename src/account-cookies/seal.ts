// The store's cookie key (migration 016) and the seal it makes: AES-256-GCM over an owner's cookie
// file, bound to its account and platform (the additional data), so that a sealed file copied to
// another row does not open. The key is made at the store's first start, as the link secret is
// (store/link-secret.ts), and stays in the store: a backup holds it, and nothing shows it.
import { fromBase64Url, randomBytes, toBase64Url } from "../util/bytes.ts";
import type { Queryable } from "../store/db.ts";

const NONCE_BYTES = 12;

/** At a store's start: its cookie key, made when it has none (instances starting together settle on one). */
export async function startCookieKey(db: Queryable): Promise<void> {
  await db.query("INSERT INTO cookie_key (key) VALUES ($1) ON CONFLICT (only_row) DO NOTHING", [
    toBase64Url(randomBytes(32)),
  ]);
}

/** The store's cookie key; made here when the store was opened without the service's start (a test, a tool). */
export async function cookieKeyOf(db: Queryable): Promise<CryptoKey> {
  const read = () => db.query<{ key: string }>("SELECT key FROM cookie_key");
  let [row] = await read();
  if (!row) {
    await startCookieKey(db);
    [row] = await read();
  }
  const raw = fromBase64Url(row!.key);
  return crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, ["encrypt", "decrypt"]);
}

const boundTo = (accountId: number, platform: string) => new TextEncoder().encode(`${accountId}/${platform}`);

export async function seal(key: CryptoKey, accountId: number, platform: string, content: Uint8Array): Promise<string> {
  const iv = randomBytes(NONCE_BYTES);
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: iv as BufferSource, additionalData: boundTo(accountId, platform) },
      key,
      content as BufferSource,
    ),
  );
  const joined = new Uint8Array(iv.length + sealed.length);
  joined.set(iv);
  joined.set(sealed, iv.length);
  return toBase64Url(joined);
}

/** The content `seal` sealed for this account and platform; throws when it was sealed for another or altered. */
export async function unseal(key: CryptoKey, accountId: number, platform: string, sealed: string): Promise<Uint8Array> {
  const bytes = fromBase64Url(sealed);
  return new Uint8Array(
    await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, NONCE_BYTES), additionalData: boundTo(accountId, platform) },
      key,
      bytes.slice(NONCE_BYTES) as BufferSource,
    ),
  );
}
