// The platforms, one module each, in docs/api.md's order. Adding a platform is its module and one line here
// (docs/architecture.md, "Adding a platform").
import { bluesky } from "./bluesky/platform.ts";
import { amazon } from "./sites/amazon.ts";
import { bilibili } from "./sites/bilibili.ts";
import { dailymotion } from "./sites/dailymotion.ts";
import { facebook } from "./sites/facebook.ts";
import { instagram } from "./sites/instagram.ts";
import { loom } from "./sites/loom.ts";
import { newgrounds } from "./sites/newgrounds.ts";
import { okru } from "./sites/okru.ts";
import { pinterest } from "./sites/pinterest.ts";
import { reddit } from "./sites/reddit.ts";
import { rutube } from "./sites/rutube.ts";
import { snapchat } from "./sites/snapchat.ts";
import { soundcloud } from "./sites/soundcloud.ts";
import { streamable } from "./sites/streamable.ts";
import { tiktok } from "./sites/tiktok.ts";
import { tumblr } from "./sites/tumblr.ts";
import { twitch } from "./sites/twitch.ts";
import { vk } from "./sites/vk.ts";
import { vimeo } from "./sites/vimeo.ts";
import { youtube } from "./sites/youtube.ts";
import { threads } from "./threads/platform.ts";
import { x } from "./x/platform.ts";
import { xiaohongshu } from "./xiaohongshu/platform.ts";

export const platformList = [
  x,
  instagram,
  youtube,
  tiktok,
  reddit,
  facebook,
  pinterest,
  amazon,
  vimeo,
  dailymotion,
  bluesky,
  bilibili,
  loom,
  newgrounds,
  okru,
  rutube,
  snapchat,
  soundcloud,
  streamable,
  tumblr,
  twitch,
  vk,
  xiaohongshu,
  threads,
] as const;

/** The id of a platform of the list. */
export type ListPlatformId = (typeof platformList)[number]["id"];
