// Tumblr: a post's link does not say whether it holds a video: yt-dlp first, gallery-dl for photos.
import { type Platform, samplesOf } from "../platform.ts";

export const tumblr: Platform<"TUMBLR"> = {
  id: "TUMBLR",
  name: "Tumblr",
  hosts: ["tumblr.com"],
  shortLinks: [{ host: "tmblr.co" }],
  mediaHosts: ["media.tumblr.com"],
  reader: "yt-dlp+gallery-dl",
  referencePost: "https://tatianamaslanydaily.tumblr.com/post/54196191430/orphan-black-dvd-extra-behind-the-scenes",
  readBy: "yt-dlp + gallery-dl (photo posts)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Tumblr", [
      "https://tatianamaslanydaily.tumblr.com/post/54196191430/orphan-black-dvd-extra-behind-the-scenes",
      "https://www.tumblr.com/shieldfoss/675519763813908480",
    ]),
    ...samplesOf("short", "service", null, ["https://tmblr.co/ZAbCdE1a2b3c4"]),
  ],
};
