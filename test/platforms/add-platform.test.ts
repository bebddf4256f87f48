// Adding a platform is one module and one line in the list (docs/architecture.md, "Adding a platform"): a list with
// a fixture module more (TED, which the installed yt-dlp reads) places its links, reads its mirror on its own host,
// routes its links to the reader it names, has its samples claimed by the tool, and gets its row of docs/api.md and
// its name in the OpenAPI text, with no other file touched.
import { afterAll, describe, expect, test } from "vitest";
import { platformList } from "../../src/platforms/list.ts";
import { platformsTable, postUrlText } from "../../src/platforms/list-text.ts";
import type { PlatformId } from "../../src/platforms/records.ts";
import { detectPlatform, type PlatformRow, tableOf } from "../../src/platforms/table.ts";
import { installedToolClaims } from "../helpers/claims.ts";
import { checkSample, shapesWithoutSamples } from "../helpers/platform-samples.ts";
import { ted } from "./fixture-platform/ted.ts";

const list = [...platformList, ted];
// The ids the compiler knows are the service's list's; in the service, the new module's line there adds its id.
const withTed = tableOf(list as readonly PlatformRow[]);
const TED = "TED" as PlatformId;
const talk = new URL(ted.samples[0]!.url);
const claims = installedToolClaims();
afterAll(() => claims.close());

describe("a platform added as a module and a line of the list", () => {
  test("is unknown to the service's own list", () => {
    expect(detectPlatform(talk, [])).toBeNull();
  });

  test("places its links, and a mirror's on its own host, and names the reader of its links", () => {
    expect(withTed.detectPlatform(talk, [])).toBe("TED");
    expect(withTed.canonicalLink(new URL("https://ted-mirror.test/talks/x")).href).toBe("https://www.ted.com/talks/x");
    expect(withTed.rowOf(TED)?.reader).toBe("yt-dlp");
    expect(withTed.supportedPlatformsText).toMatch(/, TED$/);
  });

  test.each(ted.samples.map((sample) => [sample.url, sample.extractor, sample] as const))(
    "%s is claimed by yt-dlp's %s",
    async (_url, _extractor, sample) => {
      expect(shapesWithoutSamples(ted)).toEqual([]);
      await checkSample(withTed, ted, sample, claims);
    },
  );

  test("gets its row of docs/api.md's table and its name in post's url text", () => {
    expect(platformsTable(list)).toContain("| `TED` | ted.com; mirrors ted-mirror.test (read on www.ted.com) |");
    expect(postUrlText(list)).toContain(", Threads, TED.");
  });
});
