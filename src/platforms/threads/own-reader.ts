// Threads' OwnReader: its settings, and how its reader (reader.ts: the posts' pages, else the web client's query) is
// built.
import { z } from "zod";
import { positiveInt } from "../../util/settings.ts";
import type { OwnReader } from "../own-reader.ts";
import { createThreadsSource } from "./reader.ts";

const settings = {
  THREADS_TIMEOUT_MS: positiveInt.default(8000).describe(
    "Bound on each fetch of a Threads post's page or query, redirects and body included",
  ),
  THREADS_QUERY_ID: z.string().regex(/^\d{1,40}$/).default("35009275178687016").describe(
    "The query id (doc_id) of the Threads web client's post query, asked when a post's page does not carry the post; Threads changes it now and then",
  ),
};

export const threadsOwnReader: OwnReader<typeof settings> = {
  settings,
  build: (context, chosen) =>
    createThreadsSource({
      platform: context.platform,
      outbound: context.outbound("Threads", chosen.THREADS_TIMEOUT_MS),
      queryId: chosen.THREADS_QUERY_ID,
      cacheTtlMs: context.cache.ttlMs,
      cacheMaxEntries: context.cache.maxEntries,
    }),
};
