// Where the service and its children may connect: the one address policy. A page (someone else's
// HTML) names URLs that yt-dlp and ffmpeg fetch and follow, and direct mode connects to CDN names;
// none of them may reach a private, loopback or link-local address. The endpoints the operator
// named (EXTRA_PAGE_HOSTS entries, ORIGIN_OVERRIDES origins) are trusted as they are, each on its
// own port only: that is how a local mirror or a test site is reached. The in-process relay and
// the egress gate (egress-gate.ts) that yt-dlp and ffmpeg go through both ask egressAddress.
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { authority, bareHost } from "./outbound-proxy.ts";
import { isPublicAddress } from "../util/address-class.ts";

/** The addresses a host name resolves to; the runtime's resolver (src/runtime/) answers. */
export type ResolveHost = (host: string) => Promise<string[]>;

export interface EgressPolicy {
  /** `host:port` (lower case, IPv6 in brackets) of the endpoints the operator named; reached without an address check. */
  trusted: ReadonlySet<string>;
  resolveHost: ResolveHost;
}

const bare = (host: string) => bareHost(host.toLowerCase());

/** The key of host:port in `EgressPolicy.trusted`. */
export function endpointKey(host: string, port: number): string {
  return authority(bare(host), port);
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === "https:" ? 443 : 80);
}

/**
 * Host and ports of an operator-configured extra page host: `127.0.0.1:8123` is that port only,
 * a bare host name its default ports 80 and 443. A port that is not named is not trusted: an
 * entry for a site must not open the database or admin port on the same machine.
 */
export function extraHostEndpoint(entry: string): { host: string; ports: number[] } {
  const text = entry.trim();
  const url = URL.parse(`http://${text}`);
  const host = (url?.hostname ?? text).toLowerCase().replace(/\.$/, "");
  // URL drops the default port, so ":80" has to be read from the text.
  const ports = url?.port ? [Number(url.port)] : /:80$/.test(text) ? [80] : [80, 443];
  return { host, ports };
}

/** The operator's endpoints: each extra page host on its port (80 and 443 when it names none), each override origin. */
export function trustedEndpoints(
  extraPageHosts: readonly string[],
  originOverrides: ReadonlyMap<string, string>,
): Set<string> {
  const endpoints = extraPageHosts.flatMap((entry) => {
    const { host, ports } = extraHostEndpoint(entry);
    return ports.map((port) => endpointKey(host, port));
  });
  for (const origin of originOverrides.values()) {
    const url = new URL(origin);
    endpoints.push(endpointKey(url.hostname, portOf(url)));
  }
  return new Set(endpoints);
}

/**
 * Where a connection to host:port goes: null when the operator trusted exactly this endpoint
 * (connect to it as named), else a checked public address of the host, to connect to instead of
 * resolving again. Throws 403 host_not_allowed, or 502 when the name does not resolve.
 */
export async function egressAddress(host: string, port: number, policy: EgressPolicy): Promise<string | null> {
  if (policy.trusted.has(endpointKey(host, port))) return null;
  let addresses: string[];
  try {
    addresses = await policy.resolveHost(bare(host));
  } catch (error) {
    throw hostNotFound(host, error);
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    const cause = new Error(
      `refused by the egress rules: ${host} resolves to ${
        addresses.join(", ") || "no address"
      }, and only public addresses may be reached`,
    );
    throw new ApiError("host_not_allowed", `The host ${host} does not resolve to a public address.`, { cause });
  }
  return addresses[0]!;
}

/**
 * 502 for a host name that does not resolve. A name that does not exist (ENOTFOUND) will not
 * resolve on a retry, so the caller is told to check the link; a resolver that failed may answer later.
 */
function hostNotFound(host: string, error: unknown): ApiError {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  const advice = code === "ENOTFOUND" ? "no such host exists; check the link" : "try again later";
  return upstreamFailed(`The host ${host} could not be found: ${advice}.`, { cause: error });
}

/** Throws 403 host_not_allowed unless `url` may be fetched (502 when its name does not resolve). */
export async function assertFetchable(url: URL, policy: EgressPolicy): Promise<void> {
  await egressAddress(url.hostname, portOf(url), policy);
}
