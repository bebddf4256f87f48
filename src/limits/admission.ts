// Turns the database's admission answer into rate-limit headers and, when the request may not
// go on, the error the caller sees.
import { ApiError } from "../http/problem.ts";
import { invalidApiKey } from "../auth/bearer.ts";
import type { Admission, AdmittedKey } from "../store/api-keys.ts";


/** Requests left in the key's 24 h window. */
export function remainingOf(key: AdmittedKey): number {
  return Math.max(0, key.dailyLimit - key.dayCount);
}

/** X-RateLimit-* for every authenticated response (docs/api.md, Limits). */
export function rateLimitHeaders(key: AdmittedKey): Record<string, string> {
  return {
    "x-ratelimit-limit": String(key.dailyLimit),
    "x-ratelimit-remaining": String(remainingOf(key)),
    "x-ratelimit-tier": key.tier,
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
  const headers = rateLimitHeaders(key);
  switch (admission.outcome) {
    case "passive":
      return new ApiError("key_passive", "This API key is passive. Its owner can make it usable again at /profile/api-keys.", { headers });
    case "expired":
      return new ApiError("key_expired", "This API key has expired. Create a new key at /profile/api-keys.", { headers });
    case "quota": {
      const retryAfter = secondsUntil(key.dayFreesAt, now);
      return new ApiError("quota_exceeded", `The daily limit of ${key.dailyLimit} requests for the ${key.tier} tier is used up; the next request is possible in ${retryAfter} s.`,
        { headers: { ...headers, "retry-after": String(retryAfter) } },
      );
    }
    default: {
      const retryAfter = secondsUntil(key.burstFreesAt, now);
      return new ApiError("burst_exceeded", `More than ${key.burstLimit} requests in 60 s for the ${key.tier} tier; slow down and retry in ${retryAfter} s.`,
        { headers: { ...headers, "retry-after": String(retryAfter) } },
      );
    }
  }
}
