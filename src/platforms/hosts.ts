// A host's match with a platform's hosts, and the check of a post's file against a platform's media hosts: read off
// one platform module, without the list, so that a reader of the service's own, which the list's modules hold, can
// use them.
import { ApiError } from "../http/problem.ts";
import type { Platform } from "./platform.ts";

export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, "");
}

/** A page host matches itself and any subdomain (www., m., mobile., ...). */
export function hostMatches(hostname: string, pageHost: string): boolean {
  return hostname === pageHost || hostname.endsWith(`.${pageHost}`);
}

/**
 * Throws 403 host_not_allowed unless `url` is an https file on one of the platform's media hosts
 * (no user, password or port): a post's files are relayed from there and from nowhere else.
 */
export function mediaCheckOf(
  platform: Pick<Platform, "name" | "mediaHosts" | "mediaFiles"> | undefined,
  id: string,
): (url: URL, what?: string) => void {
  // A link straight to one of its media files is relayed from that file's host too.
  const hosts = [...(platform?.mediaHosts ?? []), ...(platform?.mediaFiles ?? []).map((shape) => shape.host)];
  return (url, what = "A file of the post") => {
    const plain = url.protocol === "https:" && url.username === "" && url.password === "" && url.port === "";
    const onHost = hosts.some((host) => hostMatches(normalizeHost(url.hostname), host));
    if (plain && onHost) return;
    throw new ApiError(
      "host_not_allowed",
      onHost
        ? `${what} must be an https link without user, password or port, as ${platform?.name ?? id} serves its files.`
        : `${what} is on ${url.host}, which is not a media host of ${platform?.name ?? id} this server fetches from.`,
    );
  };
}
