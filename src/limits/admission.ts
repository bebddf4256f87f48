// Turns the database's admission answer into rate-limit headers and, when the request may not
// go on, the error the caller sees.
import { ApiError } from "../http/problem.ts";
import { invalidApiKey } from "../auth/bearer.ts";
import type { Admission, AdmittedKey } from "../store/api-keys.ts";

/** Requests left in the key's 24 h window. */
export function remainingOf(key: AdmittedKey): number {
  return Math.max(0, key.dailyLimit - key.dayCount);
}

/** The two windows a key is counted in: the sliding day and the burst minute. */
const DAY_WINDOW_S = 86_400;
const BURST_WINDOW_S = 60;

/**
 * The rate-limit headers of every answer to a known key (docs/api.md, Limits): X-RateLimit-* for
 * the day, or for the burst minute on the 429 that the burst refused (a client that reads only
 * those then sees why it waits), and the IETF fields (draft-ietf-httpapi-ratelimit-headers) naming
 * both windows. `t` is the seconds until the window's oldest counted request leaves it and frees a
 * unit (0 when nothing is counted).
 */
export function rateLimitHeaders(
  key: AdmittedKey,
  now: Date,
  window: "day" | "burst" = "day",
): Record<string, string> {
  const burstRemaining = Math.max(0, key.burstLimit - key.burstCount);
  const resetIn = (at: Date | null) => (at === null ? 0 : secondsUntil(at, now));
  return {
    "x-ratelimit-limit": String(window === "day" ? key.dailyLimit : key.burstLimit),
    "x-ratelimit-remaining": String(window === "day" ? remainingOf(key) : burstRemaining),
    "x-ratelimit-tier": key.tier,
    "ratelimit-policy": `"day";q=${key.dailyLimit};w=${DAY_WINDOW_S}, "burst";q=${key.burstLimit};w=${BURST_WINDOW_S}`,
    ratelimit: `"day";r=${remainingOf(key)};t=${resetIn(key.dayFreesAt)}, "burst";r=${burstRemaining};t=${
      resetIn(key.burstFreesAt)
    }`,
  };
}

/** Whole seconds until `at`, at least 1, as Retry-After wants. */
export function secondsUntil(at: Date | null, now: Date): number {
  if (!at) return 1;
  return Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
}

/** Null when the request may go on; otherwise the error to answer with (headers included). */
export function admissionError(admission: Admission, now: Date): ApiError | null {
  const key = admission.key;
  if (admission.outcome === "admitted") return null;
  if (!key) return invalidApiKey();
  const headers = rateLimitHeaders(key, now);
  switch (admission.outcome) {
    case "passive":
      return new ApiError(
        "key_passive",
        "This API key is passive. Its owner can make it usable again at /profile/api-keys.",
        { headers },
      );
    case "expired":
      return new ApiError("key_expired", "This API key has expired. Create a new key at /profile/api-keys.", {
        headers,
      });
    case "quota": {
      const retryAfter = secondsUntil(key.dayFreesAt, now);
      return new ApiError(
        "quota_exceeded",
        `The daily limit of ${key.dailyLimit} requests for the ${key.tier} tier is used up; the next request is possible in ${retryAfter} s.`,
        { headers: { ...headers, "retry-after": String(retryAfter) } },
      );
    }
    default: {
      const retryAfter = secondsUntil(key.burstFreesAt, now);
      return new ApiError(
        "burst_exceeded",
        `More than ${key.burstLimit} requests in 60 s for the ${key.tier} tier; slow down and retry in ${retryAfter} s.`,
        { headers: { ...rateLimitHeaders(key, now, "burst"), "retry-after": String(retryAfter) } },
      );
    }
  }
}
