// TikTok: yt-dlp reads videos (and a slideshow's music), gallery-dl a slideshow's pictures and music.
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

export const tiktok: Platform<"TIKTOK"> = {
  id: "TIKTOK",
  name: "TikTok",
  hosts: ["tiktok.com"],
  // The app's share links, and the mobile site's older share link of a video (`m.tiktok.com/v/<id>.html`, as
  // cobalt's patterns name it), which redirect to the video's page.
  shortLinks: [
    { host: "vm.tiktok.com" },
    { host: "vt.tiktok.com" },
    { host: "tiktok.com", path: /^\/t\/\w+/ },
    { host: "m.tiktok.com", path: /^\/v\/\d+\.html$/ },
  ],
  // www.tiktokv.com: the app's own share host, whose `/share/video/<id>` yt-dlp's TikTok reads on www.tiktok.com too.
  mirrors: mirrorsOf("www.tiktok.com", ["tnktok.com", "vxtiktok.com", "tiktxk.com", "tfxktok.com", "www.tiktokv.com"]),
  mediaHosts: ["tiktokcdn.com", "tiktokcdn-us.com", "tiktokcdn-eu.com", "tiktokv.com", "ibyteimg.com", "byteimg.com"],
  reader: "yt-dlp+gallery-dl",
  ytdlpPlaylist: (url) => /^\/@[^/]+\/?$/.test(url.pathname),
  photoShape: /\/photo\/\d+/,
  sessionCookies: ["sessionid", "sid_tt"],
  // A slideshow's music as its last item, the file of its `music.playUrl` (gallery-dl's default, said so that it stays):
  // the record lists it as a sound item beside the pictures, and cobalt's picker gives it as `audio`.
  galleryDlOptions: ["extractor.tiktok.audio=true"],
  referencePost: "https://www.tiktok.com/@leenabhushan/video/6748451240264420610",
  readBy: "yt-dlp + gallery-dl (`/photo/`)",
  samples: [
    ...samplesOf("post", "yt-dlp", "TikTok", ["https://www.tiktok.com/@leenabhushan/video/6748451240264420610"]),
    ...samplesOf("photo", "gallery-dl", "tiktok", ["https://www.tiktok.com/@user/photo/7296335380254706949"]),
    ...samplesOf("short", "service", null, [
      "https://vm.tiktok.com/ZMabc123/",
      "https://vt.tiktok.com/ZSabc123/",
      "https://www.tiktok.com/t/ZTabc123/",
      "https://m.tiktok.com/v/6748451240264420610.html",
    ]),
    ...samplesOf("mirror", "yt-dlp", "TikTok", [
      "https://www.tnktok.com/@leenabhushan/video/6748451240264420610",
      "https://vxtiktok.com/@leenabhushan/video/6748451240264420610",
      "https://tiktxk.com/@leenabhushan/video/6748451240264420610",
      "https://tfxktok.com/@leenabhushan/video/6748451240264420610",
      // yt-dlp's own test's link (extractor/tiktok.py).
      "https://www.tiktokv.com/share/video/7668090902816017671/",
    ]),
    ...samplesOf("collection", "yt-dlp", "TikTokUser", ["https://www.tiktok.com/@leenabhushan"]),
  ],
};
