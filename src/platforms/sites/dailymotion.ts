// Dailymotion: videos, audio and subtitles through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const dailymotion: Platform<"DAILYMOTION"> = {
  id: "DAILYMOTION",
  name: "Dailymotion",
  hosts: ["dailymotion.com", "dai.ly"],
  reader: "yt-dlp",
  ytdlpPlaylist: (url) => /^\/playlist\//.test(url.pathname),
  referencePost: "https://www.dailymotion.com/video/x2iuewm",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "Dailymotion", [
      "https://www.dailymotion.com/video/x2iuewm",
      "https://dai.ly/x2iuewm",
      "https://www.dailymotion.com/embed/video/x2iuewm",
      "https://geo.dailymotion.com/player.html?video=x2iuewm",
    ]),
    ...samplesOf("collection", "yt-dlp", "DailymotionPlaylist", ["https://www.dailymotion.com/playlist/x5nmbq"]),
  ],
};
