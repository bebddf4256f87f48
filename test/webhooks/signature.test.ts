// The receiver's side is code no one here wrote: the standardwebhooks package verifies what we sign.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newEndpointSecret, newMessageId, signedHeaders } from "../../src/webhooks/signature.ts";

describe("Standard Webhooks signatures", () => {
  const body = JSON.stringify({ type: "job.completed", timestamp: "2026-11-27T21:00:00.000Z", data: { id: "j" } });
  const timestampS = Math.floor(Date.now() / 1000);

  it("makes secrets of the standard's form: whsec_ and base64 of 32 random bytes, never the same", () => {
    const [a, b] = [newEndpointSecret(), newEndpointSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
  });

  it("signs so that the standard's own library accepts the delivery, and refuses a changed body", async () => {
    const secret = newEndpointSecret();
    const headers = await signedHeaders([secret], { id: newMessageId(), timestampS, body });
    const receiver = new Webhook(secret);
    expect(receiver.verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => receiver.verify(body.replace("job.completed", "job.failed"), headers)).toThrow();
  });

  it("signs with both secrets after a rotation: a receiver with either verifies", async () => {
    const [old, fresh] = [newEndpointSecret(), newEndpointSecret()];
    const headers = await signedHeaders([fresh, old], { id: newMessageId(), timestampS, body });
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(old).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newEndpointSecret()).verify(body, headers)).toThrow();
  });
});
