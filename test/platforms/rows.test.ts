// Every platform module of the list, offline: it has sample links (the shapes people paste, most from yt-dlp's and
// gallery-dl's own extractor tests) of every shape it lists, and each belongs to it, goes to the reader it names and
// is claimed by that tool's own extractor, as the installed yt-dlp and gallery-dl say (test/helpers/platform-samples.ts).
import { afterAll, describe, expect, test } from "vitest";
import { platformList } from "../../src/platforms/list.ts";
import { detectPlatform, table } from "../../src/platforms/table.ts";
import { installedToolClaims } from "../helpers/claims.ts";
import { checkSample, shapesWithoutSamples } from "../helpers/platform-samples.ts";

const claims = installedToolClaims();
afterAll(() => claims.close());

describe.each(platformList.map((platform) => [platform.id, platform] as const))("%s", (id, platform) => {
  test("has samples of every shape it lists, and its reference post (where it has one) is one of its links", () => {
    expect(shapesWithoutSamples(platform)).toEqual([]);
    if (platform.referencePost !== null) expect(detectPlatform(new URL(platform.referencePost), [])).toBe(id);
  });

  test.each(platform.samples.map((sample) => [sample.url, sample.shape, sample.claimedBy, sample] as const))(
    "%s (%s) is claimed by %s",
    async (_url, _shape, _claimedBy, sample) => {
      await checkSample(table, platform, sample, claims);
    },
  );
});
