import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { checkCsrf, csrfToken, isCrossOrigin } from "../../src/web/csrf.ts";

const post = (headers: Record<string, string> = {}) =>
  new Request("http://keys.example:8080/profile/api-keys", { method: "POST", headers });

async function refusal(request: Request, form: URLSearchParams, secret: string | null): Promise<string | undefined> {
  try {
    await checkCsrf(request, form, secret);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
    return (error as ApiError).code;
  }
}

describe("isCrossOrigin()", () => {
  it("trusts Sec-Fetch-Site when the browser sends it", () => {
    expect(isCrossOrigin(post({ "sec-fetch-site": "same-origin" }))).toBe(false);
    expect(isCrossOrigin(post({ "sec-fetch-site": "none" }))).toBe(false);
    expect(isCrossOrigin(post({ "sec-fetch-site": "same-site", origin: "http://keys.example:8080" }))).toBe(true);
    expect(isCrossOrigin(post({ "sec-fetch-site": "cross-site" }))).toBe(true);
  });

  it("compares Origin with the host otherwise, and lets a request without either through to the token", () => {
    expect(isCrossOrigin(post({ origin: "http://keys.example:8080" }))).toBe(false);
    expect(isCrossOrigin(post({ origin: "https://keys.example:8080" }))).toBe(false);
    expect(isCrossOrigin(post({ origin: "http://keys.example:9090" }))).toBe(true);
    expect(isCrossOrigin(post({ origin: "http://evil.example" }))).toBe(true);
    expect(isCrossOrigin(post({ origin: "null" }))).toBe(true);
    expect(isCrossOrigin(post())).toBe(false);
  });
});

describe("checkCsrf()", () => {
  it("accepts the token of the cookie's secret and nothing else", async () => {
    const token = await csrfToken("secret-a");
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(token).not.toBe(await csrfToken("secret-b"));
    const same = { "sec-fetch-site": "same-origin" };
    expect(await refusal(post(same), new URLSearchParams({ csrf: token }), "secret-a")).toBeUndefined();
    expect(await refusal(post(same), new URLSearchParams({ csrf: token }), "secret-b")).toBe("form_expired");
    expect(await refusal(post(same), new URLSearchParams({ csrf: token }), null)).toBe("form_expired");
    expect(await refusal(post(same), new URLSearchParams(), "secret-a")).toBe("form_expired");
    expect(await refusal(post(same), new URLSearchParams({ csrf: "" }), "")).toBe("form_expired");
  });

  it("refuses a post from another site even with the right token", async () => {
    const form = new URLSearchParams({ csrf: await csrfToken("secret-a") });
    expect(await refusal(post({ "sec-fetch-site": "cross-site" }), form, "secret-a")).toBe("cross_origin_post");
    expect(await refusal(post({ origin: "http://evil.example" }), form, "secret-a")).toBe("cross_origin_post");
  });
});
