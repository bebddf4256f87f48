// The checks of a platform module's samples (src/platforms/platform.ts), over a table built from a list of modules:
// each sample link belongs to its platform in that table, goes where its shape says (a short link followed, a
// collection answered with the job call, a photo post to gallery-dl), and the installed tool's extractor the sample
// names claims it (no network). test/platforms/rows.test.ts runs them on the service's list, and
// test/platforms/add-platform.test.ts on a list with one more module.
import { expect } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import type { ExtractorClaims } from "../../src/platforms/claims.ts";
import type { Platform, ReaderName, Sample, ShortLinkShape } from "../../src/platforms/platform.ts";
import type { PlatformId } from "../../src/platforms/records.ts";
import type { tableOf } from "../../src/platforms/table.ts";
import { postRefOf } from "../../src/platforms/bluesky/url.ts";
import { postOf } from "../../src/platforms/threads/url.ts";
import { isShortLink, noteOf } from "../../src/platforms/xiaohongshu/url.ts";
import { statusLinkOf } from "../../src/platforms/x/url.ts";

type Table = ReturnType<typeof tableOf>;

/**
 * The link parsers of the service's own readers: what they take is what they read, where no tool's extractor claims
 * the link (every link of Threads, X's bookmark links, Xiaohongshu's short links) and where one does.
 */
export const ownLinkParsers: Partial<Record<string, (url: URL) => unknown>> = {
  BLUESKY: postRefOf,
  THREADS: postOf,
  X: statusLinkOf,
  XIAOHONGSHU: (url) => noteOf(url) ?? (isShortLink(url) || null),
};

/** The link parser of the link's reader, where it is the service's own. */
const ownParserOf = (platform: Platform, reader: ReaderName) =>
  reader === "own" || reader === "x" ? ownLinkParsers[platform.id] : undefined;

const onHost = (url: URL, host: string) => url.hostname === host || url.hostname.endsWith(`.${host}`);
const isShort = (url: URL, shape: ShortLinkShape) =>
  onHost(url, shape.host) && (shape.path?.test(url.pathname) ?? true);

/** The shapes a module lists (photo posts, collections, each mirror host, each short-link shape) that no sample has. */
export function shapesWithoutSamples(platform: Platform): string[] {
  const urls = (shape: Sample["shape"]) =>
    platform.samples.filter((sample) => sample.shape === shape).map(({ url }) => new URL(url));
  return [
    ...(urls("post").length === 0 ? ["a post"] : []),
    ...(platform.photoShape !== undefined && urls("photo").length === 0 ? ["a photo post"] : []),
    ...(platform.collectionShape !== undefined && urls("collection").length === 0 ? ["a collection"] : []),
    ...Object.keys(platform.mirrors ?? {}).filter((host) => !urls("mirror").some((url) => onHost(url, host)))
      .map((host) => `the mirror ${host}`),
    ...(platform.shortLinks ?? []).filter((shape) => !urls("short").some((url) => isShort(url, shape)))
      .map((shape) => `the short link ${shape.host}${shape.path?.source ?? ""}`),
    ...(platform.mediaFiles ?? []).filter((shape) => !urls("file").some((url) => isShort(url, shape)))
      .map((shape) => `the media file ${shape.host}${shape.path.source}`),
  ];
}

/** Checks one sample of `platform` in `table`; `claims` asks the installed tools which extractor claims a link. */
export async function checkSample(table: Table, platform: Platform, sample: Sample, claims: ExtractorClaims) {
  const pasted = new URL(sample.url);
  expect(table.detectPlatform(pasted, [])).toBe(platform.id);
  if (sample.shape === "short") return void expect(table.shortLinkRow(pasted)?.id).toBe(platform.id);
  expect(table.shortLinkRow(pasted)).toBeNull();
  // A media file's link is read as that file, by the service; a tool's extractor that claims it says it is one.
  expect(table.readerOf(pasted, platform.id as PlatformId) === "file").toBe(sample.shape === "file");
  // A mirror's link is read on the platform's canonical host: that link is the one the tool must claim.
  const link = table.canonicalLink(pasted);
  expect(link.hostname !== pasted.hostname).toBe(sample.shape === "mirror");
  expect(table.detectPlatform(link, [])).toBe(platform.id);
  const answersJobCall = sample.shape === "collection" && platform.collectionShape !== undefined;
  expect(oneLinkError(() => table.requireOnePost(link, platform.id as PlatformId))?.code).toBe(
    answersJobCall ? "invalid_url" : undefined,
  );
  const reader = table.readerOf(link, platform.id as PlatformId);
  if (sample.shape !== "collection" && sample.shape !== "file") {
    expect(sample.claimedBy).toBe(firstReader(platform, reader, link, sample.claimedBy));
  }
  if (sample.claimedBy === "service") {
    if (!answersJobCall && reader !== "file") expect(ownParserOf(platform, reader)?.(link) ?? null).not.toBeNull();
    return;
  }
  const claim = await claims.claimOf(link);
  expect(sample.claimedBy === "yt-dlp" ? claim.ytdlp : claim.gallerydl).toBe(sample.extractor);
}

/**
 * Who reads a post link of the platform first, by the link's reader (the platform's, or its shape's): gallery-dl for a
 * photo-shaped link beside yt-dlp, the service where no tool reads the platform, else yt-dlp, whose extractor for X's,
 * Bluesky's and Xiaohongshu's links (read by the service) still has to claim them, so that the link shape is one the
 * platform has; the service for a link of those no extractor claims (an X bookmark's, a Xiaohongshu short link),
 * which the sample says, and its reader's parser then takes.
 */
function firstReader(
  platform: Platform,
  reader: ReaderName,
  link: URL,
  said: Sample["claimedBy"],
): Sample["claimedBy"] {
  if (reader === "yt-dlp+gallery-dl" && platform.photoShape?.test(link.pathname)) return "gallery-dl";
  return said === "service" && ownParserOf(platform, reader) !== undefined ? "service" : "yt-dlp";
}

function oneLinkError(check: () => void): ApiError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}
