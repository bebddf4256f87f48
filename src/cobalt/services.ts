// Our platforms in cobalt's words: the name cobalt's `GET /` lists and its texts say
// (`context.service`), cobalt's own where cobalt has the service (its friendly names: "bluesky",
// "twitch clips"), ours where it has none (Amazon, Threads).
import { platformList } from "../platforms/list.ts";

const cobaltNames: Record<string, string> = {
  X: "twitter",
  INSTAGRAM: "instagram",
  YOUTUBE: "youtube",
  TIKTOK: "tiktok",
  REDDIT: "reddit",
  FACEBOOK: "facebook",
  PINTEREST: "pinterest",
  AMAZON: "amazon",
  VIMEO: "vimeo",
  DAILYMOTION: "dailymotion",
  BLUESKY: "bluesky",
  BILIBILI: "bilibili",
  LOOM: "loom",
  NEWGROUNDS: "newgrounds",
  OKRU: "ok",
  RUTUBE: "rutube",
  SNAPCHAT: "snapchat",
  SOUNDCLOUD: "soundcloud",
  STREAMABLE: "streamable",
  TUMBLR: "tumblr",
  TWITCH: "twitch clips",
  VK: "vk",
  XIAOHONGSHU: "xiaohongshu",
  THREADS: "threads",
};

/** cobalt's name of a platform of ours; a platform it has no name for (an extractor's, `OTHER`) in lower case. */
export function serviceName(platform: string): string {
  return cobaltNames[platform] ?? platform.toLowerCase();
}

/** What `GET /` lists as `services`: every platform of ours, in the list's order. */
export function serviceNames(): string[] {
  return platformList.map(({ id }) => serviceName(id));
}
