// The `filename` parameter as clients use it: a post's title, line breaks and invisible characters
// included, is a download with a clean name, not a 400.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

describe("download with a suggested file name", () => {
  let store: TestStore;
  let cdn: FakeCdn;
  let test: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, cdn] = await Promise.all([openTestStore("pglite"), startFakeCdn()]);
    test = buildTestApp(store.db, { env: { ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}` } });
    key = (await makeKey(store.db, "GOLD")).plain;
  });
  afterAll(async () => {
    await Promise.all([store?.close(), cdn?.close()]);
  });

  const download = (filename: string) =>
    test.get(
      `/api/v1/download?url=${encodeURIComponent("https://video.twimg.com/file/1000/clip.mp4")}&filename=${
        encodeURIComponent(filename)
      }`,
      key,
    );

  it("turns a title's line breaks into spaces and drops zero-width, format and noncharacters from both forms", async () => {
    const response = await download("Sunset at the pier\r\n\u200bpart\u00ad 2\u202e\ufeff\ufdd0\u{10ffff}\t(final)");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="Sunset at the pier part 2 (final).mp4"; filename*=UTF-8''Sunset%20at%20the%20pier%20part%202%20%28final%29.mp4`,
    );
    expect((await response.arrayBuffer()).byteLength).toBe(1000);
  });

  it("replaces the other control characters, NUL included", async () => {
    const response = await download("a\u0000b\u0007c\u007fd");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="a_b_c_d.mp4"; filename*=UTF-8''a_b_c_d.mp4`,
    );
    await response.arrayBuffer();
  });
});
