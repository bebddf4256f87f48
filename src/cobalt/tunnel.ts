// cobalt's tunnels on the door's origin: `<COBALT_PUBLIC_URL>/tunnel?<query>`, where the query is a
// signed link to /api/v1/download (auth/signed-link.ts) for the key that asked. So the link already
// holds `?` and a client adds `&p=1` to probe it, as cobalt's web app does; a probe is answered 200
// once the signature holds, without a download. Any other request is the download itself, asked of
// the API in-process with the same query: the API checks the link again, counts it against its key
// and plans it as every download.
import { DOWNLOAD_PATH } from "../auth/link-caller.ts";
import { signLink, verifyLink } from "../auth/signed-link.ts";
import { ApiError } from "../http/problem.ts";
import type { Queryable } from "../store/db.ts";
import { readLinkSecret } from "../store/link-secret.ts";

export const TUNNEL_PATH = "/tunnel";
/** cobalt's web app probes a tunnel with this parameter before it downloads. */
const PROBE_PARAM = "p";

export interface TunnelSettings {
  db: Queryable;
  /** The door's own address (COBALT_PUBLIC_URL, else the request's origin), without a trailing slash. */
  base: string;
  ttlS: number;
}

/** Signs tunnels for the key `keyId`, good for the settings' TTL from `now`. */
export function tunnelSigner(settings: TunnelSettings, keyId: string, now: Date) {
  let secret: Promise<string> | undefined;
  const terms = { base: "", keyId, expiresAt: new Date(now.getTime() + settings.ttlS * 1000) };
  return async (params: Record<string, string>): Promise<string> => {
    const signed = await signLink(await (secret ??= readLinkSecret(settings.db)), DOWNLOAD_PATH, params, terms);
    return `${settings.base}${TUNNEL_PATH}${signed.slice(DOWNLOAD_PATH.length)}`;
  };
}

/** The download a tunnel stands for: /api/v1/download with the tunnel's query, less the probe's mark. */
export function downloadOf(tunnel: URL): { download: URL; probe: boolean } {
  const download = new URL(DOWNLOAD_PATH, tunnel);
  download.search = tunnel.search;
  const probe = download.searchParams.has(PROBE_PARAM);
  download.searchParams.delete(PROBE_PARAM);
  return { download, probe };
}

/** The status a tunnel whose signature does not hold is answered with (403), or null when it holds. */
export async function tunnelRefusal(db: Queryable, download: URL, now: Date): Promise<number | null> {
  try {
    await verifyLink(await readLinkSecret(db), download, now);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}
