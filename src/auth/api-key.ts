// API keys: `xva_` followed by 32 random bytes in base64url (docs/api.md, Keys), or, for clients that
// take only keys shaped as cobalt's are, a random UUID (version 4, lower case: 122 random bits).
// Only the SHA-256 of a key is ever stored or compared; the plain key lives in the one response
// that creates it.
import { randomBytes, sha256Hex, toBase64Url } from "../util/bytes.ts";

export const KEY_PREFIX = "xva_";
const KEY_PATTERN = /^xva_[A-Za-z0-9_-]{43}$/;
/** cobalt's web app saves an API key only when it matches this (test/fakes/cobalt-clients/PROVENANCE.md). */
const UUID_KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** `xva_` plus six characters, or a UUID's first ten: enough to tell keys apart, nothing to guess with. */
const DISPLAY_LENGTH = KEY_PREFIX.length + 6;

/** `xva`: the service's own keys; `uuid`: keys shaped as cobalt's, for cobalt's web app (docs/api.md, cobalt's clients). */
export type KeyShape = "xva" | "uuid";

export interface NewKey {
  plain: string;
  hash: string;
  displayPrefix: string;
}

export async function generateKey(shape: KeyShape = "xva"): Promise<NewKey> {
  const plain = shape === "uuid" ? crypto.randomUUID() : KEY_PREFIX + toBase64Url(randomBytes(32));
  return { plain, hash: await hashKey(plain), displayPrefix: displayPrefix(plain) };
}

/** Cheap shape check, so that garbage never costs a database lookup. */
export function isWellFormedKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate) || UUID_KEY_PATTERN.test(candidate);
}

export function hashKey(plain: string): Promise<string> {
  return sha256Hex(plain);
}

export function displayPrefix(plain: string): string {
  return plain.slice(0, DISPLAY_LENGTH);
}
