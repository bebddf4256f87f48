// The link shapes a platform module knows, said to a caller whose link on one of its hosts is of none of them: the
// module's samples on that host (else all of them), so that the answer shows what to paste. Pure.
import { ApiError } from "../http/problem.ts";
import type { Platform, Sample, SampleShape } from "./platform.ts";

/** What each shape is to a caller. */
const shapeWords: Record<SampleShape, string> = {
  post: "a post",
  photo: "a photo post",
  short: "a short link",
  mirror: "a mirror's link",
  collection: "many posts, for POST /api/v1/jobs",
  file: "a photo file, read as that photo",
};

/** More samples than this say no more of the shapes than the first ones. */
const MAX_SHOWN = 8;

/**
 * Samples of one shape whose paths start alike (`/<user>/status/...` with or without a media-viewer suffix,
 * `/watch?v=` on www. and m.) show the same thing: the first stands for the others.
 */
function firstOfEachKind(samples: readonly Sample[]): Sample[] {
  const seen = new Set<string>();
  return samples.filter(({ shape, url }) => {
    const key = `${shape} ${new URL(url).pathname.split("/").slice(1, 3).join("/")}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

const onHost = (hostname: string, host: string) => hostname === host || hostname.endsWith(`.${host}`);

/** The host of the platform's that `url` is on (a page host, a mirror or a short link's host); null for none. */
function platformHostOf(platform: Platform, url: URL): string | null {
  const hosts = [
    ...platform.hosts,
    ...Object.keys(platform.mirrors ?? {}),
    ...(platform.shortLinks ?? []).map(({ host }) => host),
  ];
  const hostname = url.hostname.toLowerCase().replace(/\.$/, "");
  return hosts.find((host) => onHost(hostname, host)) ?? null;
}

/** The module's samples on the link's host, else all of them. */
function samplesFor(platform: Platform, url: URL): { host: string | null; samples: readonly Sample[] } {
  const host = platformHostOf(platform, url);
  const there = host === null ? [] : platform.samples.filter((sample) => onHost(new URL(sample.url).hostname, host));
  return there.length > 0 ? { host, samples: there } : { host: null, samples: platform.samples };
}

/** "Links of <host> it reads: <sample> (a post), ...", the shapes the platform's module knows for the link's host. */
export function knownShapesText(platform: Platform, url: URL): string {
  const { host, samples } = samplesFor(platform, url);
  const shown = firstOfEachKind(samples).slice(0, MAX_SHOWN).map(({ url, shape }) => `${url} (${shapeWords[shape]})`);
  const where = host === null ? `${platform.name} links` : `Links of ${host}`;
  const note = platform.linkNote === undefined ? "" : ` ${platform.linkNote}`;
  return `${where} this service reads look like: ${shown.join(", ")}.${note}`;
}

/** The detail of a link on the platform's host whose path is of no shape its reader reads. */
function unknownShapeText(platform: Platform, url: URL): string {
  const shown = url.href.length > 200 ? `${url.href.slice(0, 200)}…` : url.href;
  return `This ${platform.name} link is of no shape this service reads: "${shown}". ${knownShapesText(platform, url)}`;
}

/** 400 invalid_url for a link on the platform's hosts whose path is of no shape its reader reads, naming the shapes it knows. */
export function unknownShapeOf(platform: Platform | undefined, url: URL): ApiError {
  const detail = platform === undefined
    ? `This link is of no shape this service reads: "${url.href.slice(0, 200)}".`
    : unknownShapeText(platform, url);
  return new ApiError("invalid_url", detail);
}
