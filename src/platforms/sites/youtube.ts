// YouTube: videos, audio and subtitles through yt-dlp (with Deno for YouTube's JavaScript challenges).
import { type Platform, samplesOf } from "../platform.ts";

export const youtube: Platform<"YOUTUBE"> = {
  id: "YOUTUBE",
  name: "YouTube",
  // Invidious's own hosts (its first instance and its redirector) and two front ends yt-dlp's Youtube extractor reads
  // as YouTube's: their links name a YouTube video or list, which yt-dlp fetches from YouTube itself.
  hosts: [
    "youtube.com",
    "youtu.be",
    "youtube-nocookie.com",
    "youtubekids.com",
    "invidio.us",
    "invidious.io",
    "vid.plus",
    "zwearz.com",
  ],
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
      // yt-dlp's own tests' links (extractor/youtube/_video.py).
      "https://invidio.us/watch?v=YE7VzlLtp-4",
      "https://redirect.invidious.io/watch?v=YE7VzlLtp-4",
      "https://vid.plus/FlRa-iH7PGw",
      "https://zwearz.com/watch/9lWxNJF-ufM/electra-woman-dyna-girl-official-trailer-grace-helbig.html",
    ]),
    ...samplesOf("collection", "yt-dlp", "YoutubeTab", [
      "https://www.youtube.com/playlist?list=PLBCF2DAC6FFB574DE",
      "https://www.youtube.com/@jawed",
    ]),
  ],
};
