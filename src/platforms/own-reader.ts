// What a reader of the service's own declares in its platform's folder (`own-reader.ts`): its settings and how it is
// built, from a small context the wiring satisfies (app-deps.ts). Its platform module holds it (`ownReader`).
import { z } from "zod";
import type { ApiError } from "../http/problem.ts";
import type { Outbound } from "../net/outbound.ts";
import type { Platform } from "./platform.ts";
import type { Expands, Source } from "./source.ts";

/** What a reader of the service's own is built from; the wiring satisfies it (app-deps.ts). */
export interface ReaderContext {
  /** The platform module whose reader it is: its id, media hosts and the shapes its links take. */
  platform: Platform;
  /** The outbound client to the platform, its calls counted under the platform's id; `name` is how a problem names it. */
  outbound(name: string, timeoutMs: number): Outbound;
  /** How long the reader keeps a post, and how many (PAGE_CACHE_TTL_S). */
  cache: { ttlMs: number; maxEntries: number };
  /** ORIGIN_OVERRIDES: a media host's files fetched from another origin. */
  originOverrides: ReadonlyMap<string, string>;
  /** The platform refused this server (502 upstream_blocked): the metrics and the platform check listen. */
  onBlocked(page: URL, error: ApiError): void;
}

/** A reader of the service's own, declared in its platform's folder (`own-reader.ts`): its settings and how it is built. */
export interface OwnReader<Shape extends z.ZodRawShape = z.ZodRawShape> {
  /** Its settings, each an environment variable, merged into the service's (config.ts). */
  settings: Shape;
  /** The API endpoints its settings name, which the readers' egress policy trusts: the operator chose them. */
  endpoints?(settings: z.infer<z.ZodObject<Shape>>): string[];
  build(context: ReaderContext, settings: z.infer<z.ZodObject<Shape>>): Source | (Source & Expands);
}

/** The list's platforms that a reader of the service's own reads, each with it. */
export function ownReadersOf(list: readonly Platform[]): { platform: Platform; reader: OwnReader }[] {
  return list.flatMap((
    platform,
  ) => (platform.ownReader === undefined ? [] : [{ platform, reader: platform.ownReader }]));
}

/** The settings of the list's own readers as one shape, which config.ts merges into the service's. */
export function ownReaderSettings(list: readonly Platform[]): z.ZodRawShape {
  return Object.assign({}, ...ownReadersOf(list).map(({ reader }) => reader.settings));
}

/** A reader's own settings, read from the service's (config.ts merged and checked them at start). */
export function settingsOf<Shape extends z.ZodRawShape>(
  reader: OwnReader<Shape>,
  config: object,
): z.infer<z.ZodObject<Shape>> {
  return z.object(reader.settings).parse(config);
}
