// Xiaohongshu (RedNote): read from the note's page by the service itself (xiaohongshu/reader.ts): yt-dlp reads only
// a note's video, gallery-dl none.
import { type Platform, samplesOf } from "../platform.ts";

import { xiaohongshuOwnReader } from "./own-reader.ts";
export const xiaohongshu: Platform<"XIAOHONGSHU"> = {
  id: "XIAOHONGSHU",
  name: "Xiaohongshu (RedNote)",
  // xhslink.cn: the app's short links since July 2026 (beside xhslink.com's), which its reader follows too.
  hosts: ["xiaohongshu.com", "xhslink.com", "xhslink.cn"],
  mediaHosts: ["xhscdn.com", "xhscdn.net"],
  reader: "own",
  ownReader: xiaohongshuOwnReader,
  collectionShape: /^\/user\/profile\/\w+\/?$/,
  // No default check: a note opens only with a link's xsec_token, which expires, so any fixed link would soon
  // report the platform broken.
  referencePost: null,
  readBy:
    "the note's own page (its photos, or its video's H.264 and H.265 files); xhslink.com and xhslink.cn links followed by it",
  linkNote:
    "A Xiaohongshu link needs the `xsec_token` its app's Share gives; without it, or with a stale one, the answer is 404 `post_unavailable`.",
  samples: [
    ...samplesOf("post", "yt-dlp", "XiaoHongShu", [
      "https://www.xiaohongshu.com/explore/6411cf99000000001300b6d9",
      "https://www.xiaohongshu.com/discovery/item/674051740000000007027a15?xsec_token=CBgeL8Dxd1ZWBhwqRd568gAZ_iwG-9JIf9tnApNmteU2E=",
    ]),
    // Short links of each shape the app has shared: `/<code>`, `/a/`, `/m/` (June 2025), `/o/`, and on xhslink.cn.
    ...samplesOf("post", "service", null, [
      "http://xhslink.com/ErpbmK",
      "http://xhslink.com/a/Aa1bB2cC3dD4",
      "http://xhslink.com/m/1gJ5tOG6M1b",
      "http://xhslink.com/o/1kZVDhZks0n",
      "http://xhslink.cn/m/1gJ5tOG6M1b",
    ]),
    ...samplesOf("collection", "service", null, ["https://www.xiaohongshu.com/user/profile/5ff0e6410000000001008400"]),
  ],
};
