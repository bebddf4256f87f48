// One platform in one place (issue 45): no file of src/ names a platform (its id, its name, its hosts) but its own
// module (src/platforms/sites/<name>.ts, or its folder src/platforms/<name>/ where it has a reader of ours) and the
// list, except the few places below that must, each with the reason.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { platformList } from "../../src/platforms/list.ts";
import type { Platform } from "../../src/platforms/platform.ts";

/** Every file of src/ with its text. */
const files = readdirSync("src", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => path.posix.join("src", file.split(path.sep).join("/")))
  .map((file) => ({ file, text: readFileSync(file, "utf8") }));

/** Words that are also English or the house's own (a worker's threads, a post's thread): matched as written. */
const commonWords = new Set(["Threads"]);

/** The patterns that name a platform: its id, each word of its name and each of its hosts. */
function wordsOf(platform: Platform): RegExp[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const names = platform.name.split(/[()]/).map((part) => part.trim()).filter((part) => part.length > 1);
  return [
    // A one-letter id (X) is every other sentence's word: X is found by its other name and hosts.
    ...(platform.id.length > 1 ? [new RegExp(`\\b${platform.id}\\b`)] : []),
    ...names.map((name) => new RegExp(`\\b${escape(name)}\\b`, commonWords.has(name) ? "" : "i")),
    ...platform.hosts.map((host) => new RegExp(`\\b${escape(host)}\\b`, "i")),
  ];
}

/** Where a platform's module lives: its file, or the folder of its own reader. */
function homeOf(id: string): (file: string) => boolean {
  const name = id.toLowerCase();
  return (file) => file === `src/platforms/sites/${name}.ts` || file.startsWith(`src/platforms/${name}/`);
}

/**
 * The places that must name a platform outside its module, as `file: id`, each with why: what a caller or the operator
 * reads (a route's text, a problem's detail, a setting's description) and must read as it is.
 */
const allowed: Record<string, string> = {
  // The tweet route is X's own API: a route of the app (handlers/ is above platforms/), with X's hosts in what the
  // caller reads.
  "src/http/query.ts: X": "TweetQuery's url, whose OpenAPI text says x.com or twitter.com",
  "src/handlers/routes.ts: X": "the tweet route's OpenAPI text: x.com and twitter.com links only",
  "src/operations/download-links.ts: X": "the tweet record's signed links read its post on x.com",
  // The operator's settings given to every yt-dlp run, whatever the platform, which exist for YouTube's sake: their
  // descriptions (README's settings table) and the code that explains them say so.
  "src/config.ts: YOUTUBE":
    "JS_RUNTIME's and PO_TOKEN_URL's descriptions, and the memory ceiling JS_RUNTIME runs under",
  "src/platforms/tools/ytdlp/js-runtime.ts: YOUTUBE": "why yt-dlp is handed --js-runtimes: YouTube's challenges",
  "src/platforms/tools/ytdlp/errors.ts: YOUTUBE": "the caller's problem detail when the token server did not answer",
};

/** `file: id` for every file outside a platform's home and the list that names it. */
function namings(list: readonly Platform[]): string[] {
  return list.flatMap((platform) => {
    const words = wordsOf(platform);
    const home = homeOf(platform.id);
    return files.filter(({ file }) => !home(file) && file !== "src/platforms/list.ts")
      .filter(({ text }) => words.some((word) => word.test(text)))
      .map(({ file }) => `${file}: ${platform.id}`);
  });
}

const found = namings(platformList);

describe("one platform in one place", () => {
  test("no file names a platform outside its module and the list, but those allowed (with why)", () => {
    expect(found.filter((naming) => !(naming in allowed))).toEqual([]);
  });

  test("each allowed naming is still there (the list only shrinks)", () => {
    expect(Object.keys(allowed).filter((naming) => !found.includes(naming))).toEqual([]);
  });
});
