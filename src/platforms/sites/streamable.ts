// Streamable: videos through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const streamable: Platform<"STREAMABLE"> = {
  id: "STREAMABLE",
  name: "Streamable",
  hosts: ["streamable.com"],
  reader: "yt-dlp",
  referencePost: "https://streamable.com/dnd1",
  readBy: "yt-dlp",
  samples: samplesOf("post", "yt-dlp", "Streamable", ["https://streamable.com/dnd1"]),
};
