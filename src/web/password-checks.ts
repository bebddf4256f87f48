// A password typed on the owner's site, checked under the sign-in limits (store/sign-in-attempts.ts):
// at sign-in, and where a signed-in owner retypes the current one (the account page). The account
// page counts as sign-in attempts on the session's account from the client, so a session, stolen
// or not, guesses no faster than the sign-in form lets anyone; the hashing it may take is smaller
// (auth/password.ts). A check the hashing refused as busy is no attempt: it is given back.
import { hashPassword, type PasswordUse, verifyPassword } from "../auth/password.ts";
import { clientAddress, clientGroup, clientNetwork, type Sender, type TrustedProxies } from "../http/client-address.ts";
import { ApiError } from "../http/problem.ts";
import type { Db } from "../store/db.ts";
import {
  type AttemptVerdict,
  clearSignInAttempts,
  returnSignInAttempt,
  takeSignInAttempt,
} from "../store/sign-in-attempts.ts";
import { newSecret } from "./session.ts";

/**
 * Sign-in attempts in 15 minutes: 5 per client on one account, 30 per client in all, and 100 per
 * account from everywhere, which takes 20 clients (IPv4 addresses or IPv6 /64s) to reach; past it,
 * one attempt per network from a client that has not tried the account (store/sign-in-attempts.ts).
 */
export const SIGN_IN_LIMITS = { perClientAndAccount: 5, perClient: 30, perAccount: 100, windowMs: 15 * 60_000 };

const tooManyAttempts: Record<Exclude<AttemptVerdict, { allowed: true }>["limit"], string> = {
  "client and account": "Too many sign-in attempts for this email.",
  client: "Too many sign-in attempts from your address.",
  account: "Too many sign-in attempts for this email, from many addresses.",
};

/** How long until `retryAt`, in words for the page and in seconds for Retry-After. */
export function waitFor(retryAt: Date, now: Date): { words: string; headers: { "retry-after": string } } {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  const minutes = Math.ceil(seconds / 60);
  const words = minutes < 120 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${Math.ceil(minutes / 60)} hours`;
  return { words, headers: { "retry-after": String(seconds) } };
}

/** Who the limits count: the client (IPv4 address, IPv6 /64) and the network around it. */
export function clientOf(sender: Sender, trustProxy: TrustedProxies) {
  const address = clientAddress(sender, trustProxy);
  return { client: clientGroup(address), network: clientNetwork(address) };
}

// Unknown emails are checked against this too, so a wrong email takes as long as a wrong password.
let dummyHash: Promise<string> | undefined;

/** Whether `password` is the account's, in the same time whether or not there is such an account. */
async function passwordMatches(
  account: { passwordHash: string } | null,
  password: string,
  use: PasswordUse,
): Promise<boolean> {
  const matches = await verifyPassword(
    password,
    account?.passwordHash ?? (await (dummyHash ??= hashPassword(newSecret()))),
    use,
  );
  return account !== null && matches;
}

export type PasswordCheck =
  | { outcome: "right" }
  | { outcome: "wrong" }
  | { outcome: "refused"; message: string; headers: { "retry-after": string } };

export interface PasswordAttempt {
  /** The account's email as typed (sign-in) or the session's (account page). */
  email: string;
  /** What `account`'s hash is checked against; null for an email with no account. */
  account: { passwordHash: string } | null;
  password: string;
  sender: Sender;
  use: PasswordUse;
}

/** Counts the attempt and checks the password; a right one forgets that client's attempts on the account. */
export async function checkPassword(
  site: { db: Db; now: () => Date; trustProxy: TrustedProxies },
  attempt: PasswordAttempt,
): Promise<PasswordCheck> {
  const counted = { email: attempt.email, ...clientOf(attempt.sender, site.trustProxy) };
  const at = site.now();
  const verdict = await takeSignInAttempt(site.db, counted, at, SIGN_IN_LIMITS);
  if (!verdict.allowed) {
    const wait = waitFor(verdict.retryAt, site.now());
    return {
      outcome: "refused",
      message: `${tooManyAttempts[verdict.limit]} Wait ${wait.words} and try again.`,
      headers: wait.headers,
    };
  }
  let matches: boolean;
  try {
    matches = await passwordMatches(attempt.account, attempt.password, attempt.use);
  } catch (error) {
    if (error instanceof ApiError && error.code === "busy") await returnSignInAttempt(site.db, counted, at);
    throw error;
  }
  if (!matches) return { outcome: "wrong" };
  await clearSignInAttempts(site.db, counted);
  return { outcome: "right" };
}
