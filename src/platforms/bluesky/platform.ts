// Bluesky: read by the service from Bluesky's public AppView (bluesky/reader.ts).
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

import { blueskyOwnReader } from "./own-reader.ts";
export const bluesky: Platform<"BLUESKY"> = {
  id: "BLUESKY",
  name: "Bluesky",
  hosts: ["bsky.app"],
  mirrors: mirrorsOf("bsky.app", ["bskx.app", "fxbsky.app", "bskyx.app"]),
  mediaHosts: ["cdn.bsky.app", "video.bsky.app"],
  reader: "own",
  ownReader: blueskyOwnReader,
  collectionShape: /^\/profile\/[^/]+(?:\/(?:feed|lists)\/[^/]+)?\/?$/,
  referencePost: "https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g",
  readBy: "Bluesky's public AppView (a video is HLS: page mode)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Bluesky", [
      "https://bsky.app/profile/bsky.app/post/3l3vgf77uco2g",
      "https://bsky.app/profile/did:plc:z72i7hdynmk6r22z27h6tvur/post/3l3vgf77uco2g",
    ]),
    ...samplesOf("mirror", "yt-dlp", "Bluesky", [
      "https://bskx.app/profile/bsky.app/post/3l3vgf77uco2g",
      "https://fxbsky.app/profile/bsky.app/post/3l3vgf77uco2g",
      "https://bskyx.app/profile/bsky.app/post/3l3vgf77uco2g",
    ]),
    ...samplesOf("collection", "gallery-dl", "bluesky", [
      "https://bsky.app/profile/bsky.app",
      "https://bsky.app/profile/bsky.app/feed/whats-hot",
    ]),
  ],
};
