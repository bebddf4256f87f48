// Why a connection could not be opened, in the words an operator acts on. Each runtime and tool
// says it its own way: Node's and Bun's errors carry a code (ENOTFOUND, ECONNREFUSED), often under
// fetch's bare "fetch failed"; Deno's and yt-dlp's only say it in their message ("dns error",
// "[Errno 111] Connection refused"); the egress policy refuses with code host_not_allowed.

const kinds: { pattern: RegExp; name: string }[] = [
  { pattern: /\bhost_not_allowed\b/, name: "refused by the egress rules" },
  {
    pattern:
      /ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_NODATA|dns error|Name or service not known|Temporary failure in name resolution|Failed to resolve|nodename nor servname|No address associated/i,
    name: "host not found",
  },
  { pattern: /ECONNREFUSED|Connection refused|ConnectionRefused/i, name: "connection refused" },
  { pattern: /ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|TimeoutError|timed? ?out/i, name: "timed out" },
  { pattern: /ECONNRESET|Connection reset/i, name: "connection reset" },
  { pattern: /EHOSTUNREACH|ENETUNREACH|No route to host|Network is unreachable/i, name: "network unreachable" },
];

/** "host not found", "connection refused", "timed out", ...: the first kind of failure that `text` tells of; null for none. */
function connectFailureIn(text: string): string | null {
  return kinds.find(({ pattern }) => pattern.test(text))?.name ?? null;
}

/** The kind of connection failure that `error` or an error of its cause chain tells of, by code, name or message; null for none. */
export function connectFailureOf(error: unknown): string | null {
  for (const each of causeChain(error)) {
    if (typeof each !== "object" || each === null) continue;
    const { code, name, message } = each as { code?: unknown; name?: unknown; message?: unknown };
    const named = connectFailureIn([code, name, message].filter((part) => typeof part === "string").join(" "));
    if (named !== null) return named;
  }
  return null;
}

/** `error`, then what caused it, and so on (at most 8 deep: a cause may point back). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let at = error;
    at !== undefined && at !== null && chain.length < 8 && !chain.includes(at);
    at = (at as { cause?: unknown }).cause
  ) {
    chain.push(at);
    if (typeof at !== "object") break;
  }
  return chain;
}
