// Password hashing with PBKDF2-HMAC-SHA256 from Web Crypto, which every runtime has. The stored
// string names its algorithm and cost, so the cost can be raised later without breaking old hashes.
import { ApiError } from "../http/problem.ts";
import { fromBase64Url, randomBytes, timingSafeEqual, toBase64Url } from "../util/bytes.ts";
import { createSemaphore } from "../util/semaphore.ts";

const ALGORITHM = "pbkdf2-sha256";
/** OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
export const DEFAULT_ITERATIONS = 600_000;

// Each derivation is ~0.3 s of CPU on the pool Node also uses for DNS and files. Two at a time
// keep a flood of sign-ins (any email, no account needed) from starving everything else.
const kdf = createSemaphore(
  2,
  32,
  () =>
    new ApiError("busy", "The server is busy checking passwords; try again in a second.", {
      headers: { "retry-after": "1" },
    }),
);

function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  return kdf(() => deriveNow(password, salt, iterations));
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
  const hash = await derive(password, salt, iterations);
  return [ALGORITHM, iterations, toBase64Url(salt), toBase64Url(hash)].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, iterations, salt, hash] = stored.split("$");
  if (algorithm !== ALGORITHM || !iterations || !salt || !hash) return false;
  const expected = fromBase64Url(hash);
  const actual = await derive(password, fromBase64Url(salt), Number(iterations));
  return timingSafeEqual(actual, expected);
}

export const MIN_PASSWORD_LENGTH = 10;

/** Throws when a new password is too weak to accept. */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ApiError("weak_password", `A password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
}
