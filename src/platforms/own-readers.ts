// The readers of the service's own, one line each, by the id of the platform they read (whose module says
// `reader: "own"`): each declares its settings and how it is built (its folder's own-reader.ts). config.ts merges their
// settings, the wiring builds each (app-deps.ts), and sources.ts hands a link of the platform to it.
import type { OwnReader } from "./own-reader.ts";
import { blueskyOwnReader } from "./bluesky/own-reader.ts";
import { threadsOwnReader } from "./threads/own-reader.ts";
import { xiaohongshuOwnReader } from "./xiaohongshu/own-reader.ts";

// deno-lint-ignore no-explicit-any
export const ownReaders: Readonly<Record<string, OwnReader<any>>> = {
  BLUESKY: blueskyOwnReader,
  XIAOHONGSHU: xiaohongshuOwnReader,
  THREADS: threadsOwnReader,
};
