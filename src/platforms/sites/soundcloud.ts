// SoundCloud: every audio variant through yt-dlp (`audio=m4a` without re-encoding).
import { type Platform, samplesOf } from "../platform.ts";

export const soundcloud: Platform<"SOUNDCLOUD"> = {
  id: "SOUNDCLOUD",
  name: "SoundCloud",
  hosts: ["soundcloud.com"],
  shortLinks: [{ host: "on.soundcloud.com" }],
  reader: "yt-dlp",
  // A set, or an artist's page (one path segment): /name, /name/sets/list.
  ytdlpPlaylist: (url) => /\/sets\//.test(url.pathname) || /^\/[^/]+\/?$/.test(url.pathname),
  referencePost: "https://soundcloud.com/ethmusic/lostin-powers-she-so-heavy",
  readBy: "yt-dlp (audio: see `audio=m4a`)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Soundcloud", [
      "https://soundcloud.com/ethmusic/lostin-powers-she-so-heavy",
      "https://m.soundcloud.com/ethmusic/lostin-powers-she-so-heavy",
    ]),
    ...samplesOf("short", "service", null, ["https://on.soundcloud.com/AbCdE12345"]),
    ...samplesOf("collection", "yt-dlp", "SoundcloudSet", ["https://soundcloud.com/ethmusic/sets/the-wind"]),
    ...samplesOf("collection", "yt-dlp", "SoundcloudUser", ["https://soundcloud.com/ethmusic"]),
  ],
};
