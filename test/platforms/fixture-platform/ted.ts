// A platform module no list of the service holds (TED, which yt-dlp reads), written as one of src/platforms/sites/:
// test/platforms/add-platform.test.ts adds it to a list and shows that its module and that line are all it needs.
import { mirrorsOf, type Platform, samplesOf } from "../../../src/platforms/platform.ts";

export const ted: Platform<"TED"> = {
  id: "TED",
  name: "TED",
  hosts: ["ted.com"],
  // Not a mirror TED has: a host of the test's own, to show a mirror's link is read on the canonical host.
  mirrors: mirrorsOf("www.ted.com", ["ted-mirror.test"]),
  reader: "yt-dlp",
  referencePost: "https://www.ted.com/talks/dan_dennett_on_our_consciousness",
  readBy: "yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "TedTalk", ["https://www.ted.com/talks/dan_dennett_on_our_consciousness"]),
    ...samplesOf("post", "yt-dlp", "TedEmbed", ["https://embed.ted.com/talks/dan_dennett_on_our_consciousness"]),
    ...samplesOf("mirror", "yt-dlp", "TedTalk", ["https://ted-mirror.test/talks/dan_dennett_on_our_consciousness"]),
    ...samplesOf("collection", "yt-dlp", "TedPlaylist", ["https://www.ted.com/playlists/who_are_the_hackers"]),
  ],
};
