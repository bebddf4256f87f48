// Who makes an API call: the key of `Authorization: Bearer`, or the key a signed link was made for
// (auth/signed-link.ts). Either way the same admission counts the call against that key.
import { hashKey } from "./api-key.ts";
import { readBearerKey } from "./bearer.ts";
import { isSignedLink, signLink, verifyLink } from "./signed-link.ts";
import { ApiError } from "../http/problem.ts";
import { type Admission, admitKeyById, admitRequest } from "../store/api-keys.ts";
import type { Queryable } from "../store/db.ts";
import { readLinkSecret } from "../store/link-secret.ts";

export const DOWNLOAD_PATH = "/api/v1/download";

/** Signs a link to /api/v1/download (or the path it was made for) with these parameters, for the request's key. */
export type LinkMaker = (params: Record<string, string>) => Promise<string>;

export interface LinkSettings {
  db: Queryable;
  /** PUBLIC_URL: where callers reach the service; unset, a link starts with its request's origin. */
  publicUrl?: string;
  /** LINK_TTL_S */
  ttlS: number;
}

/**
 * The admission of the call's key. A signed link is taken when the call has no Authorization
 * header: 403 when it was changed or has expired, or its key is deleted (passive and expired keys
 * are refused by the admission, as for a header). `pastDay`: as admitRequest takes it.
 */
export async function admitCaller(
  settings: LinkSettings,
  request: Request,
  url: URL,
  now: Date,
  pastDay = false,
): Promise<Admission> {
  if (request.headers.has("authorization") || !isSignedLink(url)) {
    return admitRequest(settings.db, await hashKey(readBearerKey(request)), now, pastDay);
  }
  const { keyId } = await verifyLink(await readLinkSecret(settings.db), url, now);
  const admission = await admitKeyById(settings.db, keyId, now, pastDay);
  if (admission.outcome === "unknown") {
    throw new ApiError(
      "key_deleted",
      "The API key this link was made for is deleted; links of a deleted key no longer work.",
    );
  }
  return admission;
}

/** The address links start with: PUBLIC_URL without a trailing slash, else the request's origin. */
export function linkBase(settings: Pick<LinkSettings, "publicUrl">, request: Request): string {
  return settings.publicUrl ? settings.publicUrl.replace(/\/+$/, "") : new URL(request.url).origin;
}

/** Signs links to `path` for `keyId`, good for the settings' TTL from `now`; the secret is read once, at the first link. */
export function linkSigner(
  settings: LinkSettings,
  request: Request,
  keyId: string,
  now: Date,
  path = DOWNLOAD_PATH,
): LinkMaker {
  return signerAt(settings, linkBase(settings, request), keyId, now, path);
}

/** As linkSigner, for links made outside a request (a webhook's event): they start with `base`. */
export function signerAt(
  settings: Pick<LinkSettings, "db" | "ttlS">,
  base: string,
  keyId: string,
  now: Date,
  path = DOWNLOAD_PATH,
): LinkMaker {
  let secret: Promise<string> | undefined;
  const terms = { base, keyId, expiresAt: new Date(now.getTime() + settings.ttlS * 1000) };
  return async (params) => signLink(await (secret ??= readLinkSecret(settings.db)), path, params, terms);
}
