// Bluesky: read by the service from Bluesky's public AppView (bluesky/reader.ts).
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

import { blueskyOwnReader } from "./own-reader.ts";
export const bluesky: Platform<"BLUESKY"> = {
  id: "BLUESKY",
  name: "Bluesky",
  hosts: ["bsky.app"],
  // The embed fixers' hosts (VixBluesky's bskx.app and its former bskyx.app, FxEmbed's fxbsky.app, bskye.app) and
  // Bluesky's own development host (yt-dlp's Bluesky reads it).
  mirrors: mirrorsOf("bsky.app", ["bskx.app", "fxbsky.app", "bskyx.app", "bskye.app", "main.bsky.dev"]),
  mediaHosts: ["cdn.bsky.app", "video.bsky.app"],
  // An image as the web client opens it: `/img/<size>/plain/<author's DID>/<blob's CID>@<format>`.
  mediaFiles: [{
    host: "cdn.bsky.app",
    path: /^\/img\/\w{1,32}\/plain\/did:[a-z]+:[\w.:%-]{1,200}\/\w{1,100}(?:@\w{1,8})?$/,
  }],
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
      "https://bskye.app/profile/bsky.app/post/3l3vgf77uco2g",
      "https://main.bsky.dev/profile/souris.moe/post/3l4qhp7bcs52c",
    ]),
    // An image's file, which no tool's extractor takes.
    ...samplesOf("file", "service", null, [
      "https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:z72i7hdynmk6r22z27h6tvur/bafkreihh3m2xmhfbnnmq2xq6ujmnpwlkw6xbfqwkcxbhkmdoxvdaswtpqy@jpeg",
    ]),
    ...samplesOf("collection", "gallery-dl", "bluesky", [
      "https://bsky.app/profile/bsky.app",
      "https://bsky.app/profile/bsky.app/feed/whats-hot",
    ]),
  ],
};
