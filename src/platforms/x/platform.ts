// X (Twitter): read by the service's own X client (x/reader.ts), a video X offers only as HLS through yt-dlp.
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

export const x: Platform<"X"> = {
  id: "X",
  name: "X (Twitter)",
  hosts: ["twitter.com", "x.com"],
  // FxEmbed's, BetterTwitFix's and their forks' hosts, as cobalt, FxEmbed and people's share links name them.
  mirrors: mirrorsOf("x.com", ["fxtwitter.com", "fixupx.com", "vxtwitter.com", "fixvx.com", "twittpr.com"]),
  reader: "x",
  // A profile and its tabs (handles are 1-15 word characters), and a list.
  collectionShape: /^\/(?:\w{1,15}(?:\/(?:media|with_replies|highlights|likes))?|i\/lists\/\d+)\/?$/,
  sessionCookies: ["auth_token"],
  checkAdvice: {
    reader: "the X client",
    update:
      "X posts are read by this service's own X client: update the service, or set X_GRAPHQL_QUERY_ID to the query id X's web client uses now",
  },
  // X's first post: old, famous, kept working.
  referencePost: "https://x.com/jack/status/20",
  readBy: "X's APIs; files relayed from X's media hosts (direct mode)",
  samples: [
    ...samplesOf("post", "yt-dlp", "Twitter", [
      "https://x.com/jack/status/20",
      "https://twitter.com/i/web/status/20",
      "https://mobile.twitter.com/jack/status/20/photo/1",
    ]),
    ...samplesOf("mirror", "yt-dlp", "Twitter", [
      "https://fxtwitter.com/jack/status/20",
      "https://d.fxtwitter.com/jack/status/20",
      "https://fixupx.com/jack/status/20",
      "https://vxtwitter.com/jack/status/20",
      "https://fixvx.com/jack/status/20",
      "https://twittpr.com/jack/status/20",
    ]),
    ...samplesOf("collection", "gallery-dl", "twitter", [
      "https://x.com/jack",
      "https://x.com/jack/media",
      "https://x.com/i/lists/123",
    ]),
  ],
};
