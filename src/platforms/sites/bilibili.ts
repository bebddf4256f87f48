// Bilibili: yt-dlp reads videos, gallery-dl `/opus/` photo posts.
import { type Platform, samplesOf } from "../platform.ts";

export const bilibili: Platform<"BILIBILI"> = {
  id: "BILIBILI",
  name: "Bilibili",
  // biliintl.com: bilibili.tv's former name, still in its links (yt-dlp's BiliIntl reads both).
  hosts: ["bilibili.com", "bilibili.tv", "biliintl.com", "b23.tv"],
  shortLinks: [{ host: "b23.tv" }],
  // The mobile site's links are the main site's paths, which no tool claims on its own host.
  mirrors: { "m.bilibili.com": "www.bilibili.com" },
  mediaHosts: ["hdslb.com"],
  reader: "yt-dlp+gallery-dl",
  photoShape: /^\/opus\/\d+/,
  referencePost: "https://www.bilibili.com/video/BV13x41117TL",
  readBy: "yt-dlp + gallery-dl (`/opus/` posts)",
  samples: [
    ...samplesOf("post", "yt-dlp", "BiliBili", ["https://www.bilibili.com/video/BV13x41117TL"]),
    ...samplesOf("post", "yt-dlp", "BiliIntl", [
      "https://www.bilibili.tv/en/video/2041863208",
      "https://www.biliintl.com/en/play/34613/341736",
    ]),
    ...samplesOf("photo", "gallery-dl", "bilibili", ["https://www.bilibili.com/opus/12345"]),
    ...samplesOf("short", "service", null, ["https://b23.tv/BV13x41"]),
    ...samplesOf("mirror", "yt-dlp", "BiliBili", ["https://m.bilibili.com/video/BV13x41117TL"]),
  ],
};
