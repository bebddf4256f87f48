// The cookies of the owner's page. `sid` holds the session token; `pre` holds a random secret
// for the CSRF token of the sign-in and sign-up forms, before there is a session. Both are
// HttpOnly and SameSite=Lax, and Secure whenever the browser talks to us over https.
import { randomBytes, toBase64Url } from "../util/bytes.ts";
import type { Db } from "../store/db.ts";
import { findSession, type Session, SESSION_TTL_MS } from "../store/sessions.ts";

export const SESSION_COOKIE = "sid";
export const PRE_SESSION_COOKIE = "pre";

/** https seen by the browser: directly, or through a proxy that says so. */
export function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
}

/** The named cookie's value; an empty value reads as absent. */
export function readCookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/** A Set-Cookie value; `maxAgeMs` 0 deletes the cookie, undefined lasts the browser session. */
export function cookie(request: Request, name: string, value: string, maxAgeMs?: number, path = "/"): string {
  const parts = [`${name}=${value}`, `Path=${path}`, "HttpOnly", "SameSite=Lax"];
  if (maxAgeMs !== undefined) parts.push(`Max-Age=${Math.floor(maxAgeMs / 1000)}`);
  if (isHttps(request)) parts.push("Secure");
  return parts.join("; ");
}

export const sessionCookie = (request: Request, token: string) =>
  cookie(request, SESSION_COOKIE, token, SESSION_TTL_MS);
export const clearedCookie = (request: Request, name: string) => cookie(request, name, "", 0);

export function newSecret(): string {
  return toBase64Url(randomBytes(32));
}

export type SessionState = { kind: "signed-in"; token: string; session: Session } | { kind: "ended" } | {
  kind: "none";
};

/** Whether the request is signed in; "ended" when it carries a cookie that no longer works. */
export async function readSession(db: Db, request: Request, now: Date): Promise<SessionState> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return { kind: "none" };
  const session = await findSession(db, token, now);
  return session ? { kind: "signed-in", token, session } : { kind: "ended" };
}
