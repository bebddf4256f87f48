// Signed links: an API call that needs no header, for a `<video src>`, an `<a download>` or a
// download manager. The link holds the call's own parameters plus the id of the key that made it
// (`kid`, never the key), an expiry (`expires`, Unix seconds) and `sig`: HMAC-SHA256, under the
// store's link secret, of the path and every other parameter in a fixed order. Web Crypto only,
// so it runs the same under Node, Bun and Deno.
import { ApiError } from "../http/problem.ts";
import { fromBase64Url, toBase64Url } from "../util/bytes.ts";

export const KEY_ID_PARAM = "kid";
export const EXPIRES_PARAM = "expires";
export const SIGNATURE_PARAM = "sig";

/** The longest LINK_TTL_S: a link that expires further ahead was not signed by the service. */
export const LONGEST_LINK_TTL_S = 7 * 24 * 3600;
/** Instances sharing a store may run clocks this far apart, so one's fresh link is not too long for another. */
const CLOCK_SKEW_S = 300;

/** Whether the call is made through a signed link (or what is left of one) rather than with a key in a header. */
export function isSignedLink(url: URL): boolean {
  return [KEY_ID_PARAM, EXPIRES_PARAM, SIGNATURE_PARAM].some((name) => url.searchParams.has(name));
}

/** The link without its terms (`kid`, `expires`, `sig`): what the operation itself was asked. */
export function withoutLinkTerms(url: URL): URL {
  const bare = new URL(url);
  for (const name of [KEY_ID_PARAM, EXPIRES_PARAM, SIGNATURE_PARAM]) bare.searchParams.delete(name);
  return bare;
}

/** The text the signature covers: the path, then every parameter but `sig`, sorted by name and value. */
function signedText(path: string, params: URLSearchParams): string {
  const entries = [...params].filter(([name]) => name !== SIGNATURE_PARAM);
  entries.sort(([a, x], [b, y]) => (a === b ? compare(x, y) : compare(a, b)));
  return `${path}?${new URLSearchParams(entries).toString()}`;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// Importing the key is the costly part; a record signs dozens of links under one secret.
let imported: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKey(secret: string): Promise<CryptoKey> {
  if (imported?.secret !== secret) {
    const key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    imported = { secret, key };
  }
  return imported.key;
}

export interface LinkTerms {
  /** The origin (and any path prefix) the link starts with, without a trailing slash. */
  base: string;
  keyId: string;
  expiresAt: Date;
}

/** An absolute link to `path` with `params`, good for the key `keyId` until `expiresAt`. */
export async function signLink(
  secret: string,
  path: string,
  params: Record<string, string>,
  terms: LinkTerms,
): Promise<string> {
  const query = new URLSearchParams(params);
  query.set(KEY_ID_PARAM, terms.keyId);
  query.set(EXPIRES_PARAM, String(Math.floor(terms.expiresAt.getTime() / 1000)));
  const signature = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    new TextEncoder().encode(signedText(path, query)),
  );
  query.set(SIGNATURE_PARAM, toBase64Url(new Uint8Array(signature)));
  return `${terms.base}${path}?${query.toString()}`;
}

/**
 * The key a signed link speaks for; 403 `link_invalid` when any byte of it was changed (the
 * expiry included) or it expires further ahead than any LINK_TTL_S signs (a link forged with a
 * secret that leaked, made to last), 403 `link_expired` once its time is over.
 */
export async function verifyLink(secret: string, url: URL, now: Date): Promise<{ keyId: string }> {
  const keyId = url.searchParams.get(KEY_ID_PARAM);
  const expires = url.searchParams.get(EXPIRES_PARAM);
  const signature = decodeSignature(url.searchParams.get(SIGNATURE_PARAM) ?? "");
  const text = new TextEncoder().encode(signedText(url.pathname, url.searchParams));
  const valid = keyId !== null && expires !== null && signature !== null &&
    Number(expires) <= now.getTime() / 1000 + LONGEST_LINK_TTL_S + CLOCK_SKEW_S &&
    (await crypto.subtle.verify("HMAC", await hmacKey(secret), signature, text));
  if (!valid) {
    throw new ApiError(
      "link_invalid",
      "This link is not one the service signed, or it was changed; ask the API for the record again to get a fresh link.",
    );
  }
  if (Number(expires) * 1000 <= now.getTime()) {
    throw new ApiError("link_expired", "This link has expired; ask the API for the record again to get a fresh link.");
  }
  return { keyId };
}

function decodeSignature(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const bytes = new Uint8Array(fromBase64Url(text));
  // The last character carries two spare bits: only the one spelling of the signature is taken.
  return toBase64Url(bytes) === text ? bytes : null;
}
