// The README is the front door and docs/ holds the rest: the settings table must be the settings
// src/config.ts reads, and every relative link in them must lead somewhere.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ConfigSchema } from "../src/config.ts";
import { platformList } from "../src/platforms/list.ts";
import { platformsTable } from "../src/platforms/list-text.ts";
import { platformsTableOf } from "../scripts/platforms-section.ts";
import { type ErrorCode, errorTable as codeTable } from "../src/http/errors.ts";

const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** README.md and every Markdown file of docs/, as paths from the repository root. */
const markdownFiles = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The text without fenced code blocks and inline code, where brackets are no links or headings. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The lines of the README's section under `## <title>`, up to the next `## `. */
function section(markdown: string, title: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(`## ${title}`);
  if (start === -1) throw new Error(`README.md has no "## ${title}" section`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** The variable names of the settings table: the first cell of each row, `NAME` in backticks. */
function settingsTableNames(readme: string): string[] {
  return section(readme, "Configuration").flatMap((line) => {
    const match = /^\| `([A-Z][A-Z0-9_]*)` \|/.exec(line);
    return match ? [match[1]!] : [];
  });
}

/** GitHub's anchors for the headings of a Markdown file (a repeated heading gets -1, -2, ...). */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const match of withoutFences.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** `file: link` for every relative link of `file` whose file or heading does not exist. */
function brokenLinks(file: string, markdown: string, readFile: (file: string) => string | null): string[] {
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = match[1]!;
    if (/^[a-z][\w+.-]*:/i.test(link)) continue; // https:, mailto: and the like are not ours to check
    const [target = "", anchor] = link.split("#", 2);
    const targetFile = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
    const text = target === "" ? markdown : targetFile.endsWith(".md") ? readFile(targetFile) : null;
    const exists = text !== null || existsSync(path.join(root, targetFile));
    if (!exists || (anchor !== undefined && (text === null || !headingAnchors(text).has(anchor)))) {
      broken.push(`${file}: ${link}`);
    }
  }
  return broken;
}

const readIfThere = (file: string) => (existsSync(path.join(root, file)) ? read(file) : null);

describe("README.md", () => {
  const readme = read("README.md");

  it("is under 300 lines", () => {
    expect(readme.split("\n").length).toBeLessThan(300);
  });

  it("has a settings-table row for every setting of src/config.ts, and a setting for every row", () => {
    const rows = settingsTableNames(readme);
    const settings = Object.keys(ConfigSchema.shape);
    expect(rows.filter((name) => !settings.includes(name)), "rows that name no setting").toEqual([]);
    expect(settings.filter((name) => !rows.includes(name)), "settings without a row").toEqual([]);
    expect(rows.filter((name, index) => rows.indexOf(name) !== index), "settings with two rows").toEqual([]);
  });

  it("shows each default given as a literal as the one src/config.ts applies", () => {
    const shape = ConfigSchema.shape as Record<string, z.ZodType>;
    const wrong = section(readme, "Configuration").flatMap((line) => {
      const match = /^\| `([A-Z][A-Z0-9_]*)` \| `([^`]*)` \|/.exec(line);
      if (!match) return [];
      const applied = shape[match[1]!]?.safeParse(undefined);
      const code = applied?.success ? String(applied.data) : "no default";
      return code === match[2] ? [] : [`${match[1]}: ${match[2]} in the README, ${code} in the code`];
    });
    expect(wrong).toEqual([]);
  });

  it("gives the test command exactly as .ci/run runs it", () => {
    const command = read(".ci/run")
      .split("\n")
      .find((line) => line.startsWith("bash scripts/setup-debian.sh"));
    expect(command).toBeDefined();
    expect(readme.split("\n")).toContain(command);
  });
});

describe("docs/api.md's table of the platforms", () => {
  it("is the one the platform modules make (npm run docs:platforms writes it)", () => {
    expect(platformsTableOf(read("docs/api.md"))).toBe(platformsTable(platformList));
  });
});

describe("relative links", () => {
  it.each(markdownFiles)("in %s lead to an existing file and heading", (file) => {
    expect(brokenLinks(file, read(file), readIfThere)).toEqual([]);
  });

  it("are found broken when the file or the heading is missing", () => {
    // The checker itself: a link into nowhere is reported, a good one is not.
    // (No made-up Markdown names here: test/repository.test.ts wants every name it sees to exist.)
    const markdown =
      "# Top\n\n[ok](#top) [ok](../README.md#quick-start) [gone](missing.txt) [no heading](../README.md#no-such-heading) [no heading](#bottom) `[code](nowhere.txt)`\n";
    expect(brokenLinks("docs/api.md", markdown, readIfThere)).toEqual([
      "docs/api.md: missing.txt",
      "docs/api.md: ../README.md#no-such-heading",
      "docs/api.md: #bottom",
    ]);
  });
});

/**
 * Every `status code` pair the API's answers can carry: each code of the error table that src/
 * constructs (`new ApiError("code"`, or a slot kind's `code: "..."`), with the table's status. Left
 * out: what only the owner's pages, the command line and /metrics answer, a marker that never
 * leaves the process, and the answer to a client that has gone.
 */
function apiErrors(): Set<string> {
  const notTheApi = [
    "src/web/",
    "src/cli/",
    "src/metrics/endpoint.ts",
    "src/http/store-refusals.ts",
    "src/auth/password.ts",
  ];
  const neverAnswered = new Set(["tool_exited", "client_closed"]);
  const pairs = new Set<string>();
  for (const file of readdirSync(path.join(root, "src"), { recursive: true, encoding: "utf8" })) {
    const name = `src/${file.split(path.sep).join("/")}`;
    if (!name.endsWith(".ts") || notTheApi.some((prefix) => name.startsWith(prefix))) continue;
    for (const match of read(name).matchAll(/(?:new ApiError\(\s*|\bcode: )"([a-z_]+)"/g)) {
      const code = match[1] as ErrorCode;
      if (code in codeTable && !neverAnswered.has(code)) pairs.add(`${codeTable[code].status} ${code}`);
    }
  }
  return pairs;
}

/** `status code` for each code of each row of a Markdown error table (`| 429 (with ...) | `a`, `b` |`). */
function errorTable(markdown: string): Set<string> {
  const pairs = new Set<string>();
  for (const match of markdown.matchAll(/^\| (\d{3})\b[^|]*\|(.*)\|$/gm)) {
    for (const code of match[2]!.matchAll(/`([a-z_]+)`/g)) pairs.add(`${match[1]} ${code[1]}`);
  }
  return pairs;
}

describe("the error tables", () => {
  it("find what src/ answers, 431 and 413 among it", () => {
    const answered = apiErrors();
    for (
      const pair of [
        "431 headers_too_large",
        "413 file_too_large",
        "408 request_timeout",
        "500 internal_error",
        "502 upstream_failed",
        "400 invalid_parameter",
      ]
    ) {
      expect(answered).toContain(pair);
    }
  });

  it.each(["README.md", "docs/api.md"])("of %s list every status and code the API answers", (file) => {
    const listed = errorTable(read(file));
    expect([...apiErrors()].filter((pair) => !listed.has(pair))).toEqual([]);
  });
});

describe("what an operator follows", () => {
  const operatorFiles = [...markdownFiles, ...readdirSync(path.join(root, "deploy")).map((name) => `deploy/${name}`)];

  it("runs no command through sudo, which a minimal Debian lacks: its commands run as root", () => {
    const withSudo = operatorFiles.flatMap((file) =>
      read(file).split("\n").filter((line) => /\bsudo\s+[-\w]/.test(line)).map((line) => `${file}: ${line.trim()}`)
    );
    expect(withSudo).toEqual([]);
  });

  it("makes every pg_dump file its owner's alone (umask 077), as admin backup's is: it holds password and key hashes", () => {
    const dumps = operatorFiles.flatMap((file) =>
      read(file).split("\n").filter((line) => /^\(?\s*(umask \d+ && )?pg_dump /.test(line.trim())).map((line) => ({
        file,
        line: line.trim(),
      }))
    );
    expect(dumps.length).toBeGreaterThan(0);
    expect(dumps.filter(({ line }) => !line.includes("umask 077"))).toEqual([]);
  });

  it("gives no two sections of a document the same heading, so each has its own link", () => {
    const twice = markdownFiles.flatMap((file) => {
      const headings = read(file).replace(/^```[\s\S]*?^```/gm, "").split("\n").filter((line) => /^#{1,3} /.test(line));
      return headings.filter((heading, index) => headings.indexOf(heading) !== index).map((heading) =>
        `${file}: ${heading}`
      );
    });
    expect(twice).toEqual([]);
  });

  it("names webhooks and watches in the README's table of the API", () => {
    const table = section(read("README.md"), "The API in brief").filter((line) => line.startsWith("| `"));
    expect(table.some((line) => line.includes("/api/v1/webhooks"))).toBe(true);
    expect(table.some((line) => line.includes("/api/v1/watches"))).toBe(true);
  });

  it("lists the install script npm's warning names, and the package it comes from", () => {
    const operating = read("docs/operating.md");
    expect(operating).toContain("`@scarf/scarf`");
    expect(operating).toContain("`@stoplight/prism-cli`");
  });
});
