// Threads: read from the post's page by the service itself (threads/reader.ts): no tool reads Threads.
import { type Platform, samplesOf } from "../platform.ts";

import { threadsOwnReader } from "./own-reader.ts";
export const threads: Platform<"THREADS"> = {
  id: "THREADS",
  name: "Threads",
  hosts: ["threads.com", "threads.net"],
  // Meta's CDN, which serves Threads' files.
  mediaHosts: ["cdninstagram.com", "fbcdn.net"],
  reader: "own",
  ownReader: threadsOwnReader,
  collectionShape: /^\/@[\w.]+\/?$/,
  // No default check yet: the reader is tested against a local platform built from a recorded page and public
  // readers' code, not yet against the site, whose answer to this server is not known.
  referencePost: null,
  readBy: "the post's own page (its words, author, photos and videos, a carousel's slides in order)",
  // No tool has a Threads extractor; the shapes are cobalt's, FxEmbed's and yt-dlp's pull requests'.
  samples: [
    ...samplesOf("post", "service", null, [
      "https://www.threads.com/@mosseri/post/DDupwppSjcp",
      "https://www.threads.net/@mds/post/DObJvDoDkQI?xmt=AQF0",
      "https://www.threads.com/@threads/post/C04KN6fODek/media",
      "https://www.threads.net/t/CzecNnZPaxr",
      "https://www.threads.com/_/post/DXO2PlPEoOQ",
    ]),
    ...samplesOf("collection", "service", null, ["https://www.threads.com/@mosseri"]),
  ],
};
