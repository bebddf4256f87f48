// `admin jars`: the operator's jars as the running service holds them, over its admin channel:
// each platform's accounts by file name, one its platform refused set aside until when and why,
// and never a cookie.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createAdminChannel } from "../../src/cli/channel.ts";
import type { PlatformChecks } from "../../src/doctor/checker.ts";
import { createCookieJars } from "../../src/platforms/cookie-jars.ts";
import { platformOfHost, trafficHosts } from "../../src/platforms/table.ts";
import { nodeFiles } from "../../src/runtime/node/files.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

let dir: string;
let store: TestStore;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "admin-jars-"));
  store = await openTestStore("pglite");
});
afterAll(async () => {
  await Promise.all([rm(dir, { recursive: true, force: true }), store?.close()]);
});

const file = (domain: string, value: string) =>
  `# Netscape HTTP Cookie File\n${domain}\tTRUE\t/\tTRUE\t1900000000\tsessionid\t${value}\n`;

test("lists each platform's accounts by file name and what is set aside, never a cookie", async () => {
  await mkdir(path.join(dir, "instagram"));
  await writeFile(path.join(dir, "instagram", "alice.txt"), file(".instagram.com", "alice-secret"));
  await writeFile(path.join(dir, "instagram", "bob.txt"), file(".instagram.com", "bob-secret"));
  const youtube = path.join(dir, "youtube.txt");
  await writeFile(youtube, file(".youtube.com", "yt-secret"));
  const now = new Date("2026-11-29T01:00:00.000Z");
  const jars = createCookieJars({
    files: nodeFiles,
    dir,
    platformFiles: new Map([["YOUTUBE", youtube]]),
    platforms: ["INSTAGRAM", "YOUTUBE", "TIKTOK"],
    platformOfHost,
    trafficHosts,
    setAsideMs: 1_800_000,
    now: () => now,
    onFault: () => {},
    onSetAside: () => {},
  });
  // Instagram refuses the account whose turn it is (alice's, the first by name).
  (await jars.take(new URL("https://www.instagram.com/p/x/")))!.refused("a sign-in");
  const channel = createAdminChannel(store.db, { checks: {} as PlatformChecks, jars });
  const answer = await channel(
    new Request("http://admin/run", { method: "POST", body: JSON.stringify({ argv: ["jars"], stdin: "" }) }),
  );
  const { code, stdout } = (await answer.json()) as { code: number; stdout: string };
  expect(code).toBe(0);
  expect(stdout.split("\n")).toEqual([
    "platform\taccount\tset aside until\treason",
    "INSTAGRAM\talice\t2026-11-29T01:30:00.000Z\ta sign-in",
    "INSTAGRAM\tbob\t-\t",
    "YOUTUBE\tCOOKIES_FILE_YOUTUBE\t-\t",
    "",
  ]);
  expect(stdout).not.toContain("secret");
});
