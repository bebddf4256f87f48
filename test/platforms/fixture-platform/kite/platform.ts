// A platform module no list of the service holds, read by a reader of the service's own, written as one of
// src/platforms/<name>/ (platform.ts, own-reader.ts, reader.ts): test/platforms/add-own-platform.test.ts adds it to the
// list and shows that its folder and that line are all it needs. Kite is no real site: its hosts end in .test.
import { type Platform, samplesOf } from "../../../../src/platforms/platform.ts";
import { kiteOwnReader } from "./own-reader.ts";

export const kite: Platform<"KITE"> = {
  id: "KITE",
  name: "Kite",
  hosts: ["kite.test"],
  reader: "own",
  ownReader: kiteOwnReader,
  referencePost: null,
  readBy: "Kite's API (a post's words and author)",
  samples: [...samplesOf("post", "service", null, ["https://kite.test/p/abc123"])],
};
