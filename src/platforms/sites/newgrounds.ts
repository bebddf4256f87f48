// Newgrounds: yt-dlp reads videos and audio, gallery-dl art posts.
import { type Platform, samplesOf } from "../platform.ts";

export const newgrounds: Platform<"NEWGROUNDS"> = {
  id: "NEWGROUNDS",
  name: "Newgrounds",
  hosts: ["newgrounds.com"],
  mediaHosts: ["ngfiles.com"],
  // An art post's picture, as its page links it: `art.ngfiles.com/images/<n>/<id>_<user>_<title>.<ext>`.
  mediaFiles: [{ host: "art.ngfiles.com", path: /^\/images\/\d+\/[\w.%-]{1,200}\.(?:png|jpe?g|gif|webp)$/i }],
  reader: "yt-dlp+gallery-dl",
  photoShape: /^\/art\/view\//,
  referencePost: "https://www.newgrounds.com/portal/view/297383",
  readBy: "yt-dlp + gallery-dl (`/art/view/`)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Newgrounds", [
      "https://www.newgrounds.com/portal/view/297383",
      "https://www.newgrounds.com/audio/listen/549479",
    ]),
    ...samplesOf("photo", "gallery-dl", "newgrounds", ["https://www.newgrounds.com/art/view/tomfulp/ryu-is-hawt"]),
    ...samplesOf("file", "gallery-dl", "newgrounds", [
      "https://art.ngfiles.com/images/0/94_tomfulp_ryu-is-hawt.gif",
    ]),
  ],
};
