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
  BLUESKY_PLC_URL: httpUrl.default("https://plc.directory").describe(
    "Base URL of the PLC directory, where the PDS of a Bluesky account (did:plc) is found, whose blobs hold a video's captions",
  ),
  BLUESKY_TIMEOUT_MS: positiveInt.default(8000).describe(
    "Bound on each call to Bluesky's AppView, video host, PLC directory and PDSes, body included",
  ),
};

export const blueskyOwnReader: OwnReader<typeof settings> = {
  settings,
  endpoints: (chosen) => [chosen.BLUESKY_APPVIEW_URL, chosen.BLUESKY_PLC_URL],
  build(context, chosen) {
    const outbound = context.outbound("Bluesky", chosen.BLUESKY_TIMEOUT_MS);
    const source = createBlueskySource({
      platform: context.platform,
      outbound,
      appViewUrl: chosen.BLUESKY_APPVIEW_URL,
      plcUrl: chosen.BLUESKY_PLC_URL,
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
