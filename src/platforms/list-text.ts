// What the OpenAPI document and docs/api.md say of the platforms, made from a list of platform modules, so that
// neither names a platform the list does not hold (http/ and app/ read these, never a platform by name). Pure.
import { type Platform, readByService } from "./platform.ts";

/** "a, b and c". */
function spokenList(words: readonly string[]): string {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** "a, b or c". */
const eitherOf = (words: readonly string[]) =>
  words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;

/** The first host of each platform's mirrors (or short links), a few platforms' worth, as examples. */
function firstHosts(list: readonly Platform[], hostsOf: (platform: Platform) => readonly string[]): string {
  return list.flatMap((platform) => hostsOf(platform).slice(0, 1)).slice(0, 3).join(", ");
}

/** The OpenAPI text of `post`'s and `download`'s `url`. */
export function postUrlText(list: readonly Platform[]): string {
  const mirrors = firstHosts(list, (platform) => Object.keys(platform.mirrors ?? {}));
  // A host of short links alone, not a share path of a page host, which would read as the page host itself.
  const shortLinks = firstHosts(
    list,
    (platform) => (platform.shortLinks ?? []).filter(({ path }) => path === undefined).map(({ host }) => host),
  );
  const collections = list.filter((platform) => platform.collectionShape !== undefined).map(({ name }) => name);
  return `Post or video URL of a supported platform: ${
    list.map(({ name }) => name).join(", ")
  }. A link on a platform's mirror (${mirrors}, ...) is read on the platform's own host; a short link (${shortLinks}, ...) is followed to its post within its platform. A profile, feed or list link of ${
    eitherOf(collections)
  } is 400 \`invalid_url\` saying to pass its posts' links (one here, or many in POST /api/v1/jobs).`;
}

/** What the description of `post` says of photo posts and of links that need more than their address. */
export function photoPostsText(list: readonly Platform[]): string {
  const own = list.filter((platform) => readByService(platform) && platform.mediaHosts !== undefined);
  const notes = list.flatMap(({ linkNote }) => (linkNote === undefined ? [] : [linkNote]));
  return [
    `Photo posts are read with gallery-dl (by the service itself for ${
      spokenList(own.map(({ name }) => name))
    }): their items carry the file's \`url\`, width and height.`,
    ...notes,
  ].join(" ");
}

/** The first sample of each shape and host: the link shapes a platform accepts, one example each. */
function shapeExamples(platform: Platform): string {
  const seen = new Set<string>();
  const firsts = platform.samples.filter(({ shape, url }) => {
    const key = `${shape} ${new URL(url).hostname}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return firsts.map(({ shape, url }) => `${shape} \`${url}\``).join(", ");
}

function hostsCell(platform: Platform): string {
  const canonicals = [...new Set(Object.values(platform.mirrors ?? {}))];
  const mirrors = canonicals.map((canonical) =>
    `${
      Object.keys(platform.mirrors!).filter((host) => platform.mirrors![host] === canonical).join(", ")
    } (read on ${canonical})`
  );
  const shortHosts = [...new Set((platform.shortLinks ?? []).map(({ host }) => host))];
  return [
    platform.hosts.join(", "),
    ...(mirrors.length === 0 ? [] : [`mirrors ${mirrors.join(", ")}`]),
    ...(shortHosts.length === 0 ? [] : [`short links on ${shortHosts.join(", ")}`]),
  ].join("; ");
}

/** docs/api.md's table of the platforms (between its `platforms` markers), one row per module of the list. */
export function platformsTable(list: readonly Platform[]): string {
  return [
    "| `platform` | hosts | link shapes (one sample each) | read by | files relayed from |",
    "|---|---|---|---|---|",
    ...list.map((platform) =>
      `| \`${platform.id}\` | ${hostsCell(platform)} | ${shapeExamples(platform)} | ${platform.readBy} | ${
        (platform.mediaHosts ?? []).join(", ")
      } |`
    ),
    "| `OTHER` | hosts the operator added (`EXTRA_PAGE_HOSTS`) | any page yt-dlp reads there | yt-dlp | |",
  ].join("\n");
}
