// Query parameter checks shared by the operations.
import { ApiError } from "./problem.ts";

const maxUrlLength = 4096;

/** Parses the user-given `url` query parameter: an absolute http(s) URL, else 400 `invalid_url`. */
export function parseUrlParam(raw: string | null | undefined): URL {
  if (raw === null || raw === undefined || raw.trim() === "") {
    throw new ApiError(400, "invalid_url", "Pass the page or media link in the `url` query parameter.");
  }
  if (raw.length > maxUrlLength) {
    throw new ApiError(400, "invalid_url", `The \`url\` parameter is longer than ${maxUrlLength} characters.`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ApiError(400, "invalid_url", "The `url` parameter is not an absolute URL; pass a full https:// link.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ApiError(400, "invalid_url", "The `url` parameter must be an http:// or https:// link.");
  }
  return url;
}

/** The `url` query parameter, parsed by parseUrlParam. */
export function requireUrlParam(query: URLSearchParams): URL {
  return parseUrlParam(query.get("url"));
}
