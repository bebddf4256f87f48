// Loom: videos through yt-dlp.
import { type Platform, samplesOf } from "../platform.ts";

export const loom: Platform<"LOOM"> = {
  id: "LOOM",
  name: "Loom",
  hosts: ["loom.com"],
  reader: "yt-dlp",
  referencePost: "https://www.loom.com/share/43d05f362f734614a2e81b4694a3a523",
  readBy: "yt-dlp",
  samples: samplesOf("post", "yt-dlp", "Loom", ["https://www.loom.com/share/43d05f362f734614a2e81b4694a3a523"]),
};
