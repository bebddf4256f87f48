// Xiaohongshu's OwnReader: its setting, and how its reader (reader.ts: the notes' own pages) is built.
import { positiveInt } from "../../util/settings.ts";
import type { OwnReader } from "../own-reader.ts";
import { createXiaohongshuSource } from "./reader.ts";

const settings = {
  XIAOHONGSHU_TIMEOUT_MS: positiveInt.default(8000).describe(
    "Bound on each fetch of a Xiaohongshu note's page or short link, body included",
  ),
};

export const xiaohongshuOwnReader: OwnReader<typeof settings> = {
  settings,
  build: (context, chosen) =>
    createXiaohongshuSource({
      platform: context.platform,
      onBlocked: context.onBlocked,
      outbound: context.outbound("Xiaohongshu", chosen.XIAOHONGSHU_TIMEOUT_MS),
      cacheTtlMs: context.cache.ttlMs,
      cacheMaxEntries: context.cache.maxEntries,
    }),
};
