// Vimeo: videos, audio and subtitles through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const vimeo: Platform<"VIMEO"> = {
  id: "VIMEO",
  name: "Vimeo",
  hosts: ["vimeo.com"],
  mirrors: { "m.vimeo.com": "vimeo.com" },
  reader: "yt-dlp",
  ytdlpPlaylist: (url) => /^\/(channels|showcase|album)\//.test(url.pathname),
  sessionCookies: ["vimeo"],
  referencePost: "https://vimeo.com/76979871",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "Vimeo", ["https://vimeo.com/76979871", "https://player.vimeo.com/video/76979871"]),
    ...samplesOf("mirror", "yt-dlp", "Vimeo", ["https://m.vimeo.com/76979871"]),
    ...samplesOf("collection", "yt-dlp", "VimeoChannel", ["https://vimeo.com/channels/staffpicks"]),
  ],
};
