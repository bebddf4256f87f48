// Webhook deliveries signed as Standard Webhooks 1.0 signs them, so a receiver verifies with any of
// its libraries: `webhook-signature` is `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the
// endpoint's secret, space-separated when two secrets sign (the 24 hours after a rotation). A secret
// is `whsec_` + base64 of its random bytes, as the standard writes it; the HMAC key is those bytes.

const SECRET_PREFIX = "whsec_";
/** The standard asks for 24 to 64 bytes; 32 is SHA-256's own block of entropy. */
const SECRET_BYTES = 32;

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

/** A new endpoint secret, shown to its owner once. */
export function newEndpointSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** A new message id: unique per event and endpoint, the same on every attempt to deliver it. */
export function newMessageId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

async function signOne(secret: string, content: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.slice(SECRET_PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, content)))}`;
}

/** The headers of one delivery attempt of `body` (the exact bytes sent), signed by every secret given. */
export async function signedHeaders(
  secrets: readonly string[],
  message: { id: string; timestampS: number; body: string },
): Promise<Record<string, string>> {
  const content = new TextEncoder().encode(`${message.id}.${message.timestampS}.${message.body}`);
  const signatures = await Promise.all(secrets.map((secret) => signOne(secret, content)));
  return {
    "content-type": "application/json",
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestampS),
    "webhook-signature": signatures.join(" "),
  };
}
