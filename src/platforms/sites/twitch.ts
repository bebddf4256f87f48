// Twitch: clips and videos through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const twitch: Platform<"TWITCH"> = {
  id: "TWITCH",
  name: "Twitch",
  cobaltName: "twitch clips",
  hosts: ["twitch.tv"],
  reader: "yt-dlp",
  referencePost: "https://clips.twitch.tv/FaintLightGullWholeWheat",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "TwitchClips", [
      "https://clips.twitch.tv/FaintLightGullWholeWheat",
      "https://www.twitch.tv/xqc/clip/CulturedAmazingKuduDatSheffy-TiZ_-ixAGYR3y2Uy",
      "https://m.twitch.tv/clip/FaintLightGullWholeWheat",
    ]),
    ...samplesOf("post", "yt-dlp", "TwitchVod", ["https://www.twitch.tv/videos/6528877"]),
  ],
};
