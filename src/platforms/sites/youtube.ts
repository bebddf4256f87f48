// YouTube: videos, audio and subtitles through yt-dlp (with Deno for YouTube's JavaScript challenges).
import { type Platform, samplesOf } from "../platform.ts";

export const youtube: Platform<"YOUTUBE"> = {
  id: "YOUTUBE",
  name: "YouTube",
  hosts: ["youtube.com", "youtu.be", "youtube-nocookie.com", "youtubekids.com"],
  reader: "yt-dlp",
  poTokens: true,
  ytdlpPlaylist: (url) =>
    url.searchParams.has("list") || /^\/(playlist|channel\/|c\/|user\/|@)/.test(url.pathname) &&
      !/\/(shorts|live)\//.test(url.pathname),
  sessionCookies: ["SID", "__Secure-1PSID", "__Secure-3PSID", "LOGIN_INFO"],
  referencePost: "https://www.youtube.com/watch?v=jNQXAC9IVRw",
  readBy: "yt-dlp (the first items of a playlist or channel link)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Youtube", [
      "https://www.youtube.com/watch?v=jNQXAC9IVRw",
      "https://youtu.be/jNQXAC9IVRw",
      "https://www.youtube.com/shorts/BGQWPY4IigY",
      "https://www.youtubekids.com/watch?v=jNQXAC9IVRw",
      "https://music.youtube.com/watch?v=jNQXAC9IVRw",
      "https://m.youtube.com/watch?v=jNQXAC9IVRw",
      "https://www.youtube-nocookie.com/embed/jNQXAC9IVRw",
      "https://www.youtube.com/live/jNQXAC9IVRw",
    ]),
    ...samplesOf("collection", "yt-dlp", "YoutubeTab", [
      "https://www.youtube.com/playlist?list=PLBCF2DAC6FFB574DE",
      "https://www.youtube.com/@jawed",
    ]),
  ],
};
