// `post` and `download` of a link that stands for many posts, on a platform whose reader reads one
// post: 400 invalid_url whose detail says to pass its posts (and the job call for many), before any reader is asked.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

describe("profiles and lists given to post", () => {
  let store: TestStore;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    store = await openTestStore("pglite");
    app = buildTestApp(store.db);
    key = (await makeKey(store.db, "GOLD")).plain;
  }, scaled(120_000));
  afterAll(() => store?.close());

  test.each([
    ["post", "https://fxtwitter.com/jack", "X (Twitter)"],
    ["download", "https://bsky.app/profile/bsky.app", "Bluesky"],
  ])("%s of %s is 400 with the job call", async (operation, pasted, name) => {
    const response = await app.get(`/api/v1/${operation}?url=${encodeURIComponent(pasted)}`, key);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      code: "invalid_url",
      detail:
        `This ${name} link stands for many posts (a profile, a feed or a list); \`post\` and \`download\` read one post. A job (POST /api/v1/jobs with {"urls": ["<link>"]}) runs the posts of the link where this service can list them, and says so where it cannot; or pass the links of its posts.`,
    });
  });
});
