// API keys: `xva_` followed by 32 random bytes in base64url (docs/api.md, Keys). Only the SHA-256
// of a key is ever stored or compared; the plain key lives in the one response that creates it.
import { randomBytes, sha256Hex, toBase64Url } from "../util/bytes.ts";

export const KEY_PREFIX = "xva_";
const KEY_PATTERN = /^xva_[A-Za-z0-9_-]{43}$/;
/** `xva_` plus six characters: enough to tell keys apart, 36 of 256 bits, nothing to guess with. */
const DISPLAY_LENGTH = KEY_PREFIX.length + 6;

export interface NewKey {
  plain: string;
  hash: string;
  displayPrefix: string;
}

export async function generateKey(): Promise<NewKey> {
  const plain = KEY_PREFIX + toBase64Url(randomBytes(32));
  return { plain, hash: await hashKey(plain), displayPrefix: displayPrefix(plain) };
}

/** Cheap shape check, so that garbage never costs a database lookup. */
export function isWellFormedKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

export function hashKey(plain: string): Promise<string> {
  return sha256Hex(plain);
}

export function displayPrefix(plain: string): string {
  return plain.slice(0, DISPLAY_LENGTH);
}
