// Keyless use of the door, when the operator opts into it (COBALT_KEYLESS_TIER): a request without a
// key is made with a key of its client's own, one per client address (an IPv4 address or an IPv6
// /64, as every per-client limit counts), of the operator's tier. So a keyless client is admitted,
// counted and limited by the same quota, burst and slots as any key, with no second ledger beside
// the keys'. The key is not a secret that anyone holds: it is derived from the address under the
// service's link secret, made on the client's first request under one account of the door's own,
// and given the operator's tier again when that setting changed.
import { displayPrefix, hashKey, KEY_PREFIX } from "../auth/api-key.ts";
import { clientAddress, clientGroup, type Sender, type TrustedProxies } from "../http/client-address.ts";
import type { Tier } from "../store/api-keys.ts";
import type { Queryable } from "../store/db.ts";
import { readLinkSecret } from "../store/link-secret.ts";
import { toBase64Url, toHex } from "../util/bytes.ts";

/** The account that holds the keyless keys; `.invalid` is a name no mail reaches, and its password hash verifies nothing. */
export const KEYLESS_EMAIL = "cobalt-keyless@door.invalid";
const NO_PASSWORD = "none";

export interface KeylessSettings {
  db: Queryable;
  tier: Tier;
}

async function hmac(secret: string, text: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)));
}

/** A UUID's shape of the first 16 bytes, as key ids are. */
function uuidOf(bytes: Uint8Array): string {
  const hex = toHex(bytes.slice(0, 16));
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
}

/** The client a keyless request counts for: its address's group, or one group for every request without an address. */
export function keylessClient(sender: Sender, trusted: TrustedProxies): string {
  const address = clientAddress(sender, trusted);
  return address === "unknown" ? "unknown" : clientGroup(address);
}

/** Gives the plain key of a keyless client, made (or given the operator's tier) on the way. */
export function keylessKeys(settings: KeylessSettings): (client: string, now: Date) => Promise<string> {
  let account: Promise<number> | undefined;
  const accountId = async () => {
    await settings.db.query(
      "INSERT INTO accounts (email, password_hash) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING",
      [KEYLESS_EMAIL, NO_PASSWORD],
    );
    const [row] = await settings.db.query<{ id: number | string }>("SELECT id FROM accounts WHERE email = $1", [
      KEYLESS_EMAIL,
    ]);
    return Number(row!.id);
  };
  const heldAccount = () =>
    account ??= accountId().catch((error) => {
      account = undefined;
      throw error;
    });
  return async (client, now) => {
    const secret = await readLinkSecret(settings.db);
    const plain = KEY_PREFIX + toBase64Url(await hmac(secret, `cobalt keyless key ${client}`));
    const id = uuidOf(await hmac(secret, `cobalt keyless id ${client}`));
    // A key the operator deleted or made passive stays so: that address is then refused as any such key is.
    await settings.db.query(
      `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, tier, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO UPDATE SET tier = EXCLUDED.tier
        WHERE api_keys.tier <> EXCLUDED.tier AND api_keys.deleted_at IS NULL`,
      [
        id,
        await heldAccount(),
        `keyless ${client}`,
        await hashKey(plain),
        displayPrefix(plain),
        settings.tier,
        now,
      ],
    );
    return plain;
  };
}
