// Bluesky's OwnReader: its settings, and how its reader (reader.ts) is built, with the expansion of a post's thread
// and a profile's posts in a job, both over one outbound client to the AppView.
import { httpUrl, positiveInt } from "../../util/settings.ts";
import type { OwnReader } from "../own-reader.ts";
import { createBlueskySource } from "./reader.ts";
import { createBlueskyThreads } from "./threads.ts";

const settings = {
  BLUESKY_APPVIEW_URL: httpUrl.default("https://public.api.bsky.app").describe(
    "Base URL of Bluesky's public AppView API, which Bluesky posts are read from",
  ),
  BLUESKY_TIMEOUT_MS: positiveInt.default(8000).describe(
    "Bound on each call to Bluesky's AppView and video host, body included",
  ),
};

export const blueskyOwnReader: OwnReader<typeof settings> = {
  settings,
  endpoints: (chosen) => [chosen.BLUESKY_APPVIEW_URL],
  build(context, chosen) {
    const outbound = context.outbound("Bluesky", chosen.BLUESKY_TIMEOUT_MS);
    const source = createBlueskySource({
      platform: context.platform,
      outbound,
      appViewUrl: chosen.BLUESKY_APPVIEW_URL,
      cacheTtlMs: context.cache.ttlMs,
      cacheMaxEntries: context.cache.maxEntries,
      originOverrides: context.originOverrides,
    });
    const threads = createBlueskyThreads({
      outbound,
      baseUrl: chosen.BLUESKY_APPVIEW_URL,
      platform: context.platform,
    });
    return { ...source, expand: threads.expand };
  },
};
