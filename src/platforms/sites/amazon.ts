// Amazon: a product page's videos through yt-dlp.
import { countryDomains, type Platform, samplesOf } from "../platform.ts";

// An explicit country list rather than a `label.<any tld>` pattern: a look-alike domain someone else owns never counts.
const suffixes = [
  "com",
  "ca",
  "com.mx",
  "com.br",
  "co.uk",
  "de",
  "fr",
  "it",
  "es",
  "nl",
  "se",
  "pl",
  "com.be",
  "com.tr",
  "ae",
  "sa",
  "eg",
  "in",
  "sg",
  "co.jp",
  "com.au",
  "cn",
  "ie",
  "co.za",
] as const;

export const amazon: Platform<"AMAZON"> = {
  id: "AMAZON",
  name: "Amazon",
  hosts: countryDomains("amazon", suffixes),
  shortLinks: [{ host: "amzn.to" }, { host: "amzn.eu" }, { host: "a.co" }],
  reader: "yt-dlp",
  sessionCookies: ["session-token", "at-main"],
  referencePost: "https://www.amazon.co.uk/dp/B098XNCHLD/",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "AmazonStore", [
      "https://www.amazon.co.uk/dp/B098XNCHLD/",
      "https://www.amazon.de/dp/B0BYLRNHK6",
    ]),
    ...samplesOf("short", "service", null, [
      "https://amzn.to/3xYzAbC",
      "https://amzn.eu/d/1aBcDeF",
      "https://a.co/d/2bCdEfG",
    ]),
  ],
};
