// Vimeo: videos, audio and subtitles through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const vimeo: Platform<"VIMEO"> = {
  id: "VIMEO",
  name: "Vimeo",
  // vimeopro.com: a Vimeo Pro member's portfolio pages, each video of it Vimeo's own (yt-dlp's VimeoPro).
  hosts: ["vimeo.com", "vimeopro.com"],
  mirrors: { "m.vimeo.com": "vimeo.com" },
  reader: "yt-dlp",
  ytdlpPlaylist: (url) => /^\/(channels|showcase|album)\//.test(url.pathname),
  sessionCookies: ["vimeo"],
  referencePost: "https://vimeo.com/76979871",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "Vimeo", ["https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"]),
    ...samplesOf("mirror", "yt-dlp", "Vimeo", ["https://m.vimeo.com/76979871"]),
    ...samplesOf("post", "yt-dlp", "VimeoPro", [
      "https://vimeopro.com/openstreetmapus/state-of-the-map-us-2013/video/68093876",
    ]),
    ...samplesOf("collection", "yt-dlp", "VimeoChannel", ["https://vimeo.com/channels/staffpicks"]),
  ],
};
