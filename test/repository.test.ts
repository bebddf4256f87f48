// The repository stands on its own: a clone with nothing beside it builds, tests and benchmarks,
// so no tracked file may point at a file outside it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const tracked = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" }).split("\0").filter(Boolean);
const trackedSet = new Set(tracked);
const trackedNames = new Set(tracked.map((file) => path.basename(file)));

/** Tracked text files and their contents; recorded upstream answers are third-party data, not references. */
const texts = tracked
  .filter((file) => !file.startsWith("test/fixtures/upstream/") && file !== "package-lock.json")
  .map((file) => ({ file, text: readFileSync(file, "utf8") }))
  .filter(({ text }) => !text.includes("\0"));

/** `file:line: match` for every match of `pattern` (global) that `isWrong` accepts. */
function offences(pattern: RegExp, isWrong: (match: RegExpExecArray, file: string) => boolean = () => true): string[] {
  const found: string[] = [];
  for (const { file, text } of texts) {
    for (const match of text.matchAll(pattern)) {
      if (isWrong(match, file)) found.push(`${file}:${text.slice(0, match.index).split("\n").length}: ${match[0]}`);
    }
  }
  return found;
}

describe("the repository", () => {
  it("does not refer to the team's shelf beside the checkout", () => {
    expect(offences(/(?:\.\.\/)+shared\b|\bshared\/(?:spec|notes|fixtures|hooks)\b/g)).toEqual([]);
  });

  it("names no absolute path of a developer's machine", () => {
    // Deployment paths (/opt/media-api, /etc/media-api, /var/lib/media-api, /data) are the
    // operator's and belong here; a workspace or a home folder does not.
    expect(offences(/(?<![\w.~$-])\/(?:work|root|home\/[\w.-]+|Users\/[\w.-]+)\//g)).toEqual([]);
  });

  it("names only Markdown files that are in the repository", () => {
    expect(offences(/[\w-]+\.md\b/g, (match) => !trackedNames.has(match[0]))).toEqual([]);
  });

  it("links from Markdown only to files that are in the repository", () => {
    const target = (match: RegExpExecArray) => match[1]!.split("#")[0]!;
    const isLocal = (link: string) => link !== "" && !/^[a-z][\w+.-]*:/i.test(link);
    expect(
      offences(/\]\(([^)\s]+)\)/g, (match, file) => {
        const link = target(match);
        return file.endsWith(".md") && isLocal(link) &&
          !trackedSet.has(path.posix.normalize(path.posix.join(path.posix.dirname(file), link)));
      }),
    ).toEqual([]);
  });
});
