// Post links of X as people paste them. The status id is the only part that matters upstream.
import { ApiError } from "../../http/problem.ts";
import { canonicalLink } from "../table.ts";

/** Hosts whose links are X post pages (docs/api.md, Tweet record). */
export const xPageHosts = [
  "x.com",
  "www.x.com",
  "mobile.x.com",
  "twitter.com",
  "www.twitter.com",
  "mobile.twitter.com",
] as const;

// `/<user>/status/<id>`, `/<user>/statuses/<id>`, `/i/web/status/<id>`, `/i/status/<id>`,
// optionally followed by `/video/<n>` or `/photo/<n>`. Handles are 1-15 word characters.
// Ids are 64-bit integers, so at most 19 digits.
const statusPath = /^\/(?:i\/web\/|i\/|\w{1,15}\/)?status(?:es)?\/(\d{1,19})(?:\/(?:video|photo)\/\d{1,2})?\/?$/;

const example = "https://x.com/<user>/status/<numeric id> (twitter.com links work too)";

function invalid(input: string): ApiError {
  const shown = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  return new ApiError("invalid_url", `Pass the link of an X post, such as ${example}; got "${shown}".`);
}

/** The status id in a pasted X post link; throws 400 invalid_url for anything else. */
export function parseStatusId(input: string): string {
  const trimmed = input.trim();
  // People paste links without a scheme ("x.com/jack/status/20"); URL needs one.
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    // A link on a mirror (fxtwitter.com, vxtwitter.com, ...) is read as X's own (table.ts).
    url = canonicalLink(new URL(withScheme));
  } catch {
    throw invalid(input);
  }
  const hostOk = (xPageHosts as readonly string[]).includes(url.hostname.toLowerCase());
  if (!hostOk || (url.protocol !== "https:" && url.protocol !== "http:")) throw invalid(input);
  // Links from the 2010-2012 web client carry the path in a hash-bang fragment: twitter.com/#!/jack/status/20
  const path = url.pathname === "/" && url.hash.startsWith("#!/") ? url.hash.slice(2).split("?")[0]! : url.pathname;
  const match = statusPath.exec(path);
  if (!match) throw invalid(input);
  return match[1]!;
}
