// Facebook: yt-dlp reads videos, gallery-dl photo links (untested against a local Facebook).
import { type Platform, samplesOf } from "../platform.ts";

export const facebook: Platform<"FACEBOOK"> = {
  id: "FACEBOOK",
  name: "Facebook",
  hosts: ["facebook.com", "fb.watch"],
  shortLinks: [{ host: "fb.watch" }, { host: "facebook.com", path: /^\/share\// }],
  mediaHosts: ["fbcdn.net"],
  reader: "yt-dlp+gallery-dl",
  photoShape: /\/photos?(?:\/|\.php|$)/,
  sessionCookies: ["c_user", "xs"],
  referencePost: "https://www.facebook.com/radiokicksfm/videos/3676516585958356/",
  readBy: "yt-dlp + gallery-dl (photos)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Facebook", [
      "https://www.facebook.com/radiokicksfm/videos/3676516585958356/",
      "https://m.facebook.com/radiokicksfm/videos/3676516585958356/",
    ]),
    ...samplesOf("photo", "gallery-dl", "facebook", ["https://www.facebook.com/photo/?fbid=10160523227373829"]),
    ...samplesOf("short", "service", null, ["https://fb.watch/abc123/", "https://www.facebook.com/share/v/1AbC2dE3/"]),
  ],
};
