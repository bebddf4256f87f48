// Where a Bluesky account's repository is kept, and its blobs with it: the PDS its DID document
// names (the service `#atproto_pds`), the document read from the PLC directory for a `did:plc` and
// from the account's own host (`/.well-known/did.json`) for a `did:web`, as the AT Protocol's
// identity spec says. A video's caption file is such a blob, served by the PDS's getBlob. A DID's PDS is
// kept as the reader keeps its posts (cached-posts.ts), so an author's transcripts ask the directory once a while.
import { upstreamFailed } from "../../http/problem.ts";
import type { Outbound } from "../../net/outbound.ts";
import { cachedPosts, type CachedPostsOptions } from "../cached-posts.ts";

export interface PdsOptions {
  /** The outbound client the reader reaches Bluesky with. */
  outbound: Outbound;
  /** Base URL of the PLC directory (BLUESKY_PLC_URL). */
  plcUrl: string;
}

/** A DID document is a few hundred bytes; the bound keeps one that never ends from filling memory. */
const maxDocumentBytes = 64 * 1024;

interface DidDocument {
  service?: { id?: unknown; type?: unknown; serviceEndpoint?: unknown }[];
}

/** Where the DID document of `did` is read, or null for a method the protocol does not use. */
function documentUrl(did: string, plcUrl: string): URL | null {
  // A did:plc is base32 after its method: it goes in the path as it is, as the directory's clients send it.
  if (/^did:plc:[a-z2-7]+$/.test(did)) return new URL(`${plcUrl.replace(/\/+$/, "")}/${did}`);
  // A did:web names its host, a port written `%3A`; a path (`:` after the host) is not used by the protocol.
  const web = /^did:web:([^:]+)$/.exec(did);
  return web ? URL.parse(`https://${decodeURIComponent(web[1]!)}/.well-known/did.json`) : null;
}

/** The getBlob links of blobs, at the PDS each DID's document names, kept a while per DID with the reader's bounds. */
export function pdsBlobs(options: PdsOptions & CachedPostsOptions) {
  const pdsOf = cachedPosts<URL>(options);
  /** The getBlob link of blob `cid` of `did`'s repository. */
  return async (did: string, cid: string): Promise<URL> => {
    const base = await pdsOf(did, () => pdsEndpoint(options, did));
    return new URL(`/xrpc/com.atproto.sync.getBlob?${new URLSearchParams({ did, cid })}`, base);
  };
}

/**
 * The PDS `did`'s document names. Read without the asker's signal: equal look-ups share one read (cached-posts.ts),
 * which one caller's going away must not end for the others; the outbound client's timeout bounds it.
 */
async function pdsEndpoint(options: PdsOptions, did: string): Promise<URL> {
  const failed = () =>
    upstreamFailed(`Bluesky's directory does not say where ${did} keeps its posts; try again later.`);
  const document = documentUrl(did, options.plcUrl);
  if (document === null) throw failed();
  const answer = await options.outbound.json({ url: document, maxBytes: maxDocumentBytes });
  const services = answer.status === 200 ? (answer.body as DidDocument | undefined)?.service : undefined;
  const pds = (Array.isArray(services) ? services : []).find((service) =>
    (service.id === "#atproto_pds" || service.id === `${did}#atproto_pds`) &&
    service.type === "AtprotoPersonalDataServer"
  )?.serviceEndpoint;
  const base = typeof pds === "string" ? URL.parse(pds) : null;
  if (base === null || !/^https?:$/.test(base.protocol)) throw failed();
  return base;
}
