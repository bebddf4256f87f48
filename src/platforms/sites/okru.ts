// OK.ru: videos through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const okru: Platform<"OKRU"> = {
  id: "OKRU",
  name: "OK.ru",
  cobaltName: "ok",
  hosts: ["ok.ru", "odnoklassniki.ru"],
  mirrors: { "m.ok.ru": "ok.ru", "mobile.ok.ru": "ok.ru" },
  reader: "yt-dlp",
  referencePost: "https://ok.ru/video/1484130554189",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "Odnoklassniki", [
      "https://ok.ru/video/1484130554189",
      "https://odnoklassniki.ru/video/20079905452",
    ]),
    ...samplesOf("mirror", "yt-dlp", "Odnoklassniki", [
      "https://m.ok.ru/video/1484130554189",
      "https://mobile.ok.ru/video/1484130554189",
    ]),
  ],
};
