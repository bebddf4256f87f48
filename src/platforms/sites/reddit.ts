// Reddit: yt-dlp reads videos, gallery-dl galleries and image posts.
import { type Platform, samplesOf } from "../platform.ts";

export const reddit: Platform<"REDDIT"> = {
  id: "REDDIT",
  name: "Reddit",
  hosts: ["reddit.com", "redd.it"],
  // redd.it/<id>, a video's v.redd.it/<id> and its reddit.com/video/<id> (cobalt's), and a post's share link; the
  // media hosts' files (i.redd.it/<name>.jpg) have a dot in them.
  shortLinks: [
    { host: "redd.it", path: /^\/\w+\/?$/ },
    { host: "reddit.com", path: /^\/r\/\w+\/s\/\w+/ },
    { host: "reddit.com", path: /^\/video\/\w+\/?$/ },
  ],
  // The embed host's links are a post's path (yt-dlp's Reddit reads them as reddit.com's).
  mirrors: { "www.redditmedia.com": "www.reddit.com" },
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
      "https://new.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
      "https://np.reddit.com/r/videos/comments/6rrwyj/that_small_heart_attack/",
    ]),
    ...samplesOf("photo", "gallery-dl", "reddit", [
      "https://www.reddit.com/gallery/hrrh23",
      "https://i.redd.it/tuhsrpvvnrs61.jpg",
    ]),
    ...samplesOf("short", "service", null, [
      "https://redd.it/6rrwyj",
      "https://v.redd.it/ifg2emt5ck0e1",
      "https://www.reddit.com/r/videos/s/Xyz123",
      "https://reddit.com/video/ifg2emt5ck0e1",
    ]),
    ...samplesOf("mirror", "yt-dlp", "Reddit", [
      "https://www.redditmedia.com/r/serbia/comments/pu9wbx/ako_vu%C4%8Di%C4%87_izgubi_izbore_ja_%C4%87u_da_crknem/",
    ]),
  ],
};
