// Password hashing with PBKDF2-HMAC-SHA256 from Web Crypto, which every runtime has. The stored
// string names its algorithm and cost, so the cost can be raised later without breaking old hashes.
import { ApiError } from "../http/problem.ts";
import { fromBase64Url, randomBytes, timingSafeEqual, toBase64Url } from "../util/bytes.ts";
import { createSemaphore } from "../util/semaphore.ts";

const ALGORITHM = "pbkdf2-sha256";
/** OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
export const DEFAULT_ITERATIONS = 600_000;

const busy = () =>
  new ApiError("busy", "The server is busy checking passwords; try again in a second.", {
    headers: { "retry-after": "1" },
  });

// Each derivation is ~0.3 s of CPU on the pool Node also uses for DNS and files. Two at a time
// keep a flood of sign-ins (any email, no account needed) from starving everything else.
const kdf = createSemaphore(2, 32, busy);

/**
 * Who a derivation is for. A signed-in owner retyping the current password on the account page
 * ("account") holds at most one of the two at a time, running or in line: sessions flooding it
 * leave sign-ins (and sign-ups) the other, and a short line.
 */
export type PasswordUse = "sign-in" | "account";
const accountShare = createSemaphore(1, 8, busy);

function derive(password: string, salt: Uint8Array, iterations: number, use: PasswordUse): Promise<Uint8Array> {
  const run = () => kdf(() => deriveNow(password, salt, iterations));
  return use === "account" ? accountShare(run) : run();
}

async function deriveNow(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    material,
    256,
  );
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations = DEFAULT_ITERATIONS): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, iterations, "sign-in");
  return [ALGORITHM, iterations, toBase64Url(salt), toBase64Url(hash)].join("$");
}

export async function verifyPassword(password: string, stored: string, use: PasswordUse = "sign-in"): Promise<boolean> {
  const [algorithm, iterations, salt, hash] = stored.split("$");
  if (algorithm !== ALGORITHM || !iterations || !salt || !hash) return false;
  const expected = fromBase64Url(hash);
  const actual = await derive(password, fromBase64Url(salt), Number(iterations), use);
  return timingSafeEqual(actual, expected);
}

export const MIN_PASSWORD_LENGTH = 10;

/** Throws when a new password is too weak to accept. */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError("weak_password", `A password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
}
