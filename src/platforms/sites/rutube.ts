// Rutube: videos through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const rutube: Platform<"RUTUBE"> = {
  id: "RUTUBE",
  name: "Rutube",
  hosts: ["rutube.ru"],
  reader: "yt-dlp",
  referencePost: "https://rutube.ru/video/3eac3b4561676c17df9132a9a1e62e3e/",
  readBy: "yt-dlp",
  samples: samplesOf("post", "yt-dlp", "Rutube", ["https://rutube.ru/video/3eac3b4561676c17df9132a9a1e62e3e/"]),
};
