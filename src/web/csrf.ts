// Two defences for every form that changes something. First the browser's own word on where a
// post comes from: Sec-Fetch-Site, or Origin against Host when a browser does not send it (the
// algorithm of Go's net/http CrossOriginProtection). Then a token in the form derived from a
// secret held in an HttpOnly cookie, which another site can neither read nor compute.
import { ApiError } from "../http/problem.ts";
import { sha256Hex, timingSafeEqual } from "../util/bytes.ts";

export function csrfToken(secret: string): Promise<string> {
  return sha256Hex(`csrf:${secret}`);
}

export function isCrossOrigin(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site !== "same-origin" && site !== "none";
  const origin = request.headers.get("origin");
  // Not a browser, or one too old to say: the token alone decides.
  if (origin === null) return false;
  try {
    return new URL(origin).host !== new URL(request.url).host;
  } catch {
    return true; // "null" and other opaque origins
  }
}

/** Throws 403 unless the post comes from our own page and carries the token of `secret`. */
export async function checkCsrf(request: Request, form: URLSearchParams, secret: string | null): Promise<void> {
  if (isCrossOrigin(request)) {
    throw new ApiError("cross_origin_post", "This form was sent from another site; use the form on this site.");
  }
  const given = new TextEncoder().encode(form.get("csrf") ?? "");
  const expected = new TextEncoder().encode(secret ? await csrfToken(secret) : "");
  if (!secret || !timingSafeEqual(given, expected)) {
    throw new ApiError("form_expired", "This form has expired; reload the page and send it again.");
  }
}
