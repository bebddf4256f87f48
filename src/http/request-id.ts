// A request's id: the caller's (or its proxy's) X-Request-Id when it is 1-64 characters of
// [A-Za-z0-9_.:-], so logs can be joined with the proxy's; else a new UUID.
export function requestIdFrom(given: string | null | undefined): string {
  return given && /^[\w.:-]{1,64}$/.test(given) ? given : crypto.randomUUID();
}
