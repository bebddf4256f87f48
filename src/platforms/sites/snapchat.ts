// Snapchat: Spotlight videos through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const snapchat: Platform<"SNAPCHAT"> = {
  id: "SNAPCHAT",
  name: "Snapchat",
  hosts: ["snapchat.com"],
  // t.snapchat.com's links, and the same on the site itself (`/t/<code>`, as cobalt's patterns name it).
  shortLinks: [{ host: "t.snapchat.com" }, { host: "snapchat.com", path: /^\/t\/\w{1,64}\/?$/ }],
  reader: "yt-dlp",
  referencePost: "https://www.snapchat.com/spotlight/W7_EDlXWTBiXAEEniNoMPwAAYYWtidGhudGZpAX1TKn0JAX1TKnXJAAAAAA",
  readBy: "yt-dlp (Spotlight)",
  samples: [
    ...samplesOf("post", "yt-dlp", "SnapchatSpotlight", [
      "https://www.snapchat.com/spotlight/W7_EDlXWTBiXAEEniNoMPwAAYYWtidGhudGZpAX1TKn0JAX1TKnXJAAAAAA",
    ]),
    ...samplesOf("short", "service", null, ["https://t.snapchat.com/aBcDeFgH", "https://www.snapchat.com/t/aBcDeFgH"]),
  ],
};
