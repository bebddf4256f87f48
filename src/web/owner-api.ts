// The site's pages that do what the API does (the paste page's look, a job, a watch) call the
// service's own API as the key the owner chooses, through a short-lived signed link, so the call
// is counted, limited and logged like any other, from the owner's own address (the per-address
// shares hold for it as for a call from there). No page keeps a second copy of an operation.
import { DOWNLOAD_PATH, linkSigner } from "../auth/link-caller.ts";
import { EXPIRES_PARAM, KEY_ID_PARAM, SIGNATURE_PARAM, signLink } from "../auth/signed-link.ts";
import { type ApiKeyInfo, createApiKey, keysHeld, listApiKeys } from "../store/api-keys.ts";
import { readLinkSecret } from "../store/link-secret.ts";
import { MAX_KEYS_PER_ACCOUNT } from "./key-routes.ts";
import { PASTE_KEY_NAME } from "./paste-page.ts";
import type { OwnerRequest, Site } from "./site.ts";

/** The page's own call is made at once; its link need not outlive it. */
const CALL_LINK_TTL_S = 60;
/** What the API call carries of the owner's request: the address a trusted proxy says it came from. */
const FORWARDED = ["x-forwarded-for"];

/** Why no key could be chosen: a 400 when the owner has usable keys, else a 409. */
export const noKeyProblem = (usable: number) =>
  usable > 0 ? { status: 400, error: "Choose one of your usable keys." } : {
    status: 409,
    error:
      `You have no usable key, and your account holds ${MAX_KEYS_PER_ACCOUNT} keys: make one of them usable, or delete one, on the keys page.`,
  };

export type OwnerApi = ReturnType<typeof ownerApi>;

export function ownerApi(site: Site) {
  const { db, now, deps } = site;

  const usableKeys = async (ctx: OwnerRequest) =>
    (await listApiKeys(db, { now: now(), accountId: ctx.caller.session.accountId })).filter((key) =>
      key.condition === "usable"
    );

  /** The chosen key; with no usable one, a key made for the page, or null when the account has no room for one. */
  async function keyFor(ctx: OwnerRequest, keys: ApiKeyInfo[], keyId: string | null): Promise<ApiKeyInfo | null> {
    if (keys.length > 0) return keys.find((candidate) => candidate.id === keyId) ?? null;
    if ((await keysHeld(db, ctx.caller.session.accountId, now())) >= MAX_KEYS_PER_ACCOUNT) return null;
    const made = await createApiKey(db, {
      accountId: ctx.caller.session.accountId,
      name: PASTE_KEY_NAME,
      tier: "FREE",
      expiresInDays: null,
      now: now(),
    });
    return made.key;
  }

  /** The API's answer to `path` as `key`, asked as the owner's client would ask it; `body` is sent as JSON in a POST. */
  async function call(
    ctx: OwnerRequest,
    key: ApiKeyInfo,
    path: string,
    ask: { params?: Record<string, string>; body?: unknown } = {},
  ): Promise<Response> {
    // At the request's own address, whatever PUBLIC_URL says: this call never leaves the process.
    const callLink = await linkSigner({ db, ttlS: CALL_LINK_TTL_S }, ctx.request, key.id, now(), path)(
      ask.params ?? {},
    );
    const headers = new Headers();
    for (const name of FORWARDED) {
      const value = ctx.request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const init: RequestInit = { headers, signal: ctx.request.signal };
    if (ask.body !== undefined) {
      headers.set("content-type", "application/json");
      Object.assign(init, { method: "POST", body: JSON.stringify(ask.body) });
    }
    return deps.api(new Request(callLink, init), ctx.peer);
  }

  return { usableKeys, keyFor, call };
}

/**
 * A record's signed download link with more parameters (a clip's bounds, `audio`), signed anew on the terms it had:
 * the same key, the same base and the same expiry. The parameters given replace the link's own.
 */
export async function withMoreParams(site: Site, link: string, more: Record<string, string>): Promise<string> {
  const url = new URL(link);
  const keyId = url.searchParams.get(KEY_ID_PARAM)!;
  const expiresAt = new Date(Number(url.searchParams.get(EXPIRES_PARAM)) * 1000);
  const params: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (![KEY_ID_PARAM, EXPIRES_PARAM, SIGNATURE_PARAM].includes(name)) params[name] = value;
  }
  // The base may end in a path of its own (PUBLIC_URL behind a proxy); the signature covers the API's path alone.
  const base = link.slice(0, link.indexOf(`${DOWNLOAD_PATH}?`));
  return signLink(await readLinkSecret(site.db), DOWNLOAD_PATH, { ...params, ...more }, { base, keyId, expiresAt });
}
