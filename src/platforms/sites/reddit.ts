// Reddit: yt-dlp reads videos, gallery-dl galleries and image posts.
import { type Platform, samplesOf } from "../platform.ts";

export const reddit: Platform<"REDDIT"> = {
  id: "REDDIT",
  name: "Reddit",
  hosts: ["reddit.com", "redd.it"],
  // redd.it/<id> and a post's share link; the media hosts' files (i.redd.it/<name>.jpg) have a dot in them.
  shortLinks: [{ host: "redd.it", path: /^\/\w+\/?$/ }, { host: "reddit.com", path: /^\/r\/\w+\/s\/\w+/ }],
  mediaHosts: ["i.redd.it", "preview.redd.it", "v.redd.it", "redditmedia.com"],
  reader: "yt-dlp+gallery-dl",
  photoShape: /^\/gallery\/\w+|\.(?:jpe?g|png|webp|gif)$/i,
  sessionCookies: ["reddit_session"],
  referencePost: "https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
  readBy: "yt-dlp + gallery-dl (`/gallery/`, image links)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Reddit", [
      "https://www.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
      "https://old.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
    ]),
    ...samplesOf("photo", "gallery-dl", "reddit", ["https://www.reddit.com/gallery/hrrh23"]),
    ...samplesOf("short", "service", null, ["https://redd.it/6rrwyj", "https://www.reddit.com/r/videos/s/Xyz123"]),
  ],
};
