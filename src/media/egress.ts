// Where the service may fetch from. Page mode hands URLs that a page (someone else's HTML) names to
// ffmpeg, and direct mode connects to CDN names; neither may reach a private, loopback or
// link-local address. Hosts the operator named (EXTRA_PAGE_HOSTS, ORIGIN_OVERRIDES targets) are
// trusted as they are: that is how a local mirror or a test site is reached.
import { lookup } from "node:dns/promises";
import { ApiError, upstreamFailed } from "../http/problem.ts";
import { isPublicAddress } from "./relay-address.ts";

export type ResolveHost = (host: string) => Promise<string[]>;

export const resolveWithDns: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** The host's addresses when every one is public; else 403 host_not_allowed. */
export async function publicAddressesOf(host: string, resolveHost: ResolveHost = resolveWithDns): Promise<string[]> {
  const addresses = await resolveHost(host.replace(/^\[(.*)\]$/, "$1"));
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw new ApiError(403, "host_not_allowed", `The host ${host} does not resolve to a public address.`);
  }
  return addresses;
}

export interface EgressPolicy {
  /** Host names (lower case) the operator configured; fetched without an address check. */
  trustedHosts: ReadonlySet<string>;
  resolveHost?: ResolveHost;
}

/** Throws 403 host_not_allowed unless `url` may be fetched by a media tool (502 when its name does not resolve). */
export async function assertFetchable(url: URL, policy: EgressPolicy): Promise<void> {
  if (policy.trustedHosts.has(url.hostname.toLowerCase())) return;
  try {
    await publicAddressesOf(url.hostname, policy.resolveHost);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw upstreamFailed(`The media host ${url.hostname} could not be found; try again later.`, { cause: error });
  }
}
