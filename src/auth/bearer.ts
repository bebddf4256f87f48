// Reads the API key from `Authorization: Bearer <key>`; refuses what cannot be a key before
// anything touches the database.
import { ApiError } from "../http/problem.ts";
import { isWellFormedKey } from "./api-key.ts";

const challenge = { "www-authenticate": 'Bearer realm="api"' };

export function readBearerKey(request: Request): string {
  const header = request.headers.get("authorization");
  if (!header) {
    throw new ApiError(401, "missing_api_key", "Send your API key as `Authorization: Bearer <key>`.", {
      headers: challenge,
    });
  }
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match || !isWellFormedKey(match[1]!)) {
    throw new ApiError(401, "invalid_api_key", "The Authorization header does not hold a valid API key (`Bearer xva_...`).", {
      headers: { "www-authenticate": 'Bearer realm="api", error="invalid_token"' },
    });
  }
  return match[1]!;
}
