// VK: yt-dlp reads videos, gallery-dl wall posts and albums.
import { type Platform, samplesOf } from "../platform.ts";

export const vk: Platform<"VK"> = {
  id: "VK",
  name: "VK",
  hosts: ["vk.com", "vk.ru", "vkvideo.ru"],
  mediaHosts: ["userapi.com"],
  reader: "yt-dlp+gallery-dl",
  photoShape: /^\/(?:album|wall)-?\d+_\d+/,
  referencePost: "https://vk.com/video205387401_165548505",
  readBy: "yt-dlp + gallery-dl (`/wall`, `/album` posts)",
  samples: [
    ...samplesOf("post", "yt-dlp", "VK", [
      "https://vk.com/video205387401_165548505",
      "https://m.vk.com/video205387401_165548505",
      "https://vkvideo.ru/video205387401_165548505",
    ]),
    ...samplesOf("photo", "gallery-dl", "vk", [
      "https://vk.com/wall-23538238_35",
      "https://vk.com/album-165740836_281339889",
    ]),
  ],
};
