// Issue 43 item 7: a download link on a host that is neither a platform's page nor X's media hosts
// is the specification's 403 "host not allowed" (download, rule 3); post keeps 400 for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

describe("a link on a host that is not allowed", () => {
  let store: TestStore;
  let test: TestApp;
  let key: string;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    test = buildTestApp(store.db);
    key = (await makeKey(store.db, "GOLD")).plain;
  });
  afterAll(() => store?.close());

  const link = encodeURIComponent("https://example.com/x.mp4");

  it("is 403 host_not_allowed for download, naming X's media hosts and the platforms", async () => {
    const response = await test.get(`/api/v1/download?url=${link}`, key);
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem.code).toBe("host_not_allowed");
    expect(problem.detail).toContain("example.com is neither a supported platform nor one of X's media hosts");
    expect(problem.detail).toContain("video.twimg.com, pbs.twimg.com, ton.twimg.com");
    expect(problem.detail).toMatch(/Supported: .*YouTube/);
  });

  it("stays 400 unsupported_platform for post", async () => {
    const response = await test.get(`/api/v1/post?url=${link}`, key);
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe("unsupported_platform");
  });
});
