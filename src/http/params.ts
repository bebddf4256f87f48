// Query parameter checks shared by the operations.
import { ApiError } from "./problem.ts";

/** The `url` parameter as an http(s) URL, or 400 invalid_url. */
export function requireUrlParam(query: URLSearchParams): URL {
  const value = query.get("url");
  if (!value) throw new ApiError(400, "invalid_url", "The `url` query parameter is required, for example `?url=https://x.com/user/status/20`.");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError(400, "invalid_url", "The `url` parameter is not a valid URL; send an absolute http(s) URL, percent-encoded.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ApiError(400, "invalid_url", "The `url` parameter must be an http or https URL.");
  }
  return url;
}
