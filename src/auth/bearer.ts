// Reads the API key from `Authorization: Bearer <key>`; refuses what cannot be a key before
// anything touches the database.
import { ApiError } from "../http/problem.ts";
import { isWellFormedKey } from "./api-key.ts";

/** The token of an `Authorization: Bearer <token>` header; null when there is none. */
export function bearerTokenOf(request: Request): string | null {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? null;
}

/** 401 for a key that is malformed or that no account holds. */
export function invalidApiKey(): ApiError {
  return new ApiError(
    "invalid_api_key",
    "The API key is not valid; send `Authorization: Bearer xva_...` with a key from /profile/api-keys.",
    {
      headers: { "www-authenticate": 'Bearer realm="api", error="invalid_token"' },
    },
  );
}

export function readBearerKey(request: Request): string {
  const header = request.headers.get("authorization");
  if (header === null) {
    throw new ApiError("missing_api_key", "Send your API key as `Authorization: Bearer <key>`.", {
      headers: { "www-authenticate": 'Bearer realm="api"' },
    });
  }
  const key = bearerTokenOf(request);
  if (key === null && isWellFormedKey(header.trim())) {
    // The key itself is fine; only the scheme word is missing, a common slip with curl -H.
    throw new ApiError(
      "missing_api_key",
      "The Authorization header holds a key without the word `Bearer`: send `Authorization: Bearer xva_...`.",
      {
        headers: { "www-authenticate": 'Bearer realm="api", error="invalid_request"' },
      },
    );
  }
  if (key === null || !isWellFormedKey(key)) throw invalidApiKey();
  return key;
}
