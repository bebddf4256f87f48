// Kite's OwnReader: its settings, and how its reader (reader.ts: Kite's API) is built.
import { httpUrl, positiveInt } from "../../../../src/util/settings.ts";
import type { OwnReader } from "../../../../src/platforms/own-reader.ts";
import { createKiteSource } from "./reader.ts";

const settings = {
  KITE_API_URL: httpUrl.default("https://api.kite.test").describe(
    "Base URL of Kite's API, which its posts are read from",
  ),
  KITE_TIMEOUT_MS: positiveInt.default(8000).describe("Bound on each call to Kite's API, body included"),
};

export const kiteOwnReader: OwnReader<typeof settings> = {
  settings,
  endpoints: (chosen) => [chosen.KITE_API_URL],
  build: (context, chosen) =>
    createKiteSource({
      platform: context.platform,
      outbound: context.outbound("Kite", chosen.KITE_TIMEOUT_MS),
      apiUrl: chosen.KITE_API_URL,
    }),
};
