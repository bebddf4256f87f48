// The one address policy: which host:port pairs the operator trusted, and the checked address of
// everything else.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { egressAddress, trustedEndpoints } from "../../src/net/egress.ts";

describe("trustedEndpoints()", () => {
  it("takes each extra page host on its port (80 and 443 without one) and each override origin", () => {
    const trusted = trustedEndpoints(
      ["127.0.0.1:8123", "Site.Example", "plain.example:80", "[::1]:9000"],
      new Map([["video.twimg.com", "http://10.0.0.7:9000"], ["pbs.twimg.com", "https://mirror.example"]]),
    );
    expect([...trusted].sort()).toEqual([
      "10.0.0.7:9000",
      "127.0.0.1:8123",
      "[::1]:9000",
      "mirror.example:443",
      "plain.example:80",
      "site.example:443",
      "site.example:80",
    ]);
  });
});

describe("egressAddress()", () => {
  const resolveHost = async (host: string) =>
    ({
      "cdn.example": ["93.184.216.34"],
      "inside.example": ["93.184.216.34", "10.1.2.3"],
      "site.example": ["127.0.0.1"],
    })[host] ?? [host];
  const policy = { trusted: new Set(["site.example:8080", "[::1]:9000"]), resolveHost };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof ApiError ? `${error.status} ${error.code}` : "other"),
    );

  it("gives the checked public address to connect to", async () => {
    expect(await egressAddress("cdn.example", 443, policy)).toBe("93.184.216.34");
  });

  it("trusts exactly the operator's endpoint, not its other ports", async () => {
    expect(await egressAddress("site.example", 8080, policy)).toBeNull();
    expect(await egressAddress("[::1]", 9000, policy)).toBeNull();
    expect(await refusal(egressAddress("site.example", 5432, policy))).toBe("403 host_not_allowed");
    expect(await refusal(egressAddress("[::1]", 9001, policy))).toBe("403 host_not_allowed");
  });

  it("refuses a name with any private address, and private literals in every spelling", async () => {
    for (const host of ["inside.example", "127.0.0.2", "[::ffff:127.0.0.1]", "169.254.169.254", "[fd00::1]"]) {
      expect(await refusal(egressAddress(host, 80, policy))).toBe("403 host_not_allowed");
    }
  });

  it("answers 502 when the name does not resolve, saying to check the link only when no retry can help", async () => {
    const failingWith = (code: string) => ({
      trusted: new Set<string>(),
      resolveHost: async () => Promise.reject(Object.assign(new Error(`getaddrinfo ${code}`), { code })),
    });
    const detail = (promise: Promise<unknown>) =>
      promise.then(() => "", (error: ApiError) => `${error.status} ${error.code}: ${error.message}`);
    expect(await detail(egressAddress("nowhere.example", 443, failingWith("ENOTFOUND")))).toBe(
      "502 upstream_failed: The host nowhere.example could not be found: no such host exists; check the link.",
    );
    expect(await detail(egressAddress("nowhere.example", 443, failingWith("EAI_AGAIN")))).toBe(
      "502 upstream_failed: The host nowhere.example could not be found: try again later.",
    );
  });
});
