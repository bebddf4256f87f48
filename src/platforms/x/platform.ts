// X (Twitter): read by the service's own X client (x/reader.ts), a video X offers only as HLS through yt-dlp; live
// broadcasts and Spaces, which X's post APIs do not hold, by yt-dlp (its twitter:broadcast and twitter:spaces).
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

export const x: Platform<"X"> = {
  id: "X",
  name: "X (Twitter)",
  cobaltName: "twitter",
  hosts: ["twitter.com", "x.com"],
  // FxEmbed's, BetterTwitFix's and their forks' hosts, as cobalt, FxEmbed and people's share links name them.
  mirrors: mirrorsOf("x.com", ["fxtwitter.com", "fixupx.com", "vxtwitter.com", "fixvx.com", "twittpr.com"]),
  reader: "x",
  shapeReaders: [
    // A live broadcast (HLS video) and a Space (its recording, HLS audio); a Space's listener view adds `/peek`.
    { path: /^\/i\/broadcasts\/\w{1,64}\/?$/, reader: "yt-dlp" },
    { path: /^\/i\/spaces\/[0-9a-zA-Z]{13}(?:\/peek)?\/?$/, reader: "yt-dlp" },
  ],
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
  readBy:
    "X's APIs; files relayed from X's media hosts (direct mode); live broadcasts (video) and Spaces (audio) by yt-dlp",
  samples: [
    ...samplesOf("post", "yt-dlp", "Twitter", [
      "https://x.com/jack/status/20",
      "https://twitter.com/i/web/status/20",
      "https://mobile.twitter.com/jack/status/20/photo/1",
      // The media viewer's and a post's other views, as X's web client and its share sheet write them.
      "https://x.com/jack/status/20/video/1",
      "https://x.com/jack/status/20/photo/2?s=20&t=Xyz12aBcD3eFgHiJkLmNoP",
      "https://x.com/jack/status/20/media_tags",
      "https://x.com/jack/status/20/analytics",
      "https://x.com/jack/status/20/likes",
      "https://x.com/jack/status/20/retweets",
      "https://twitter.com/jack/status/20/retweets/with_comments",
      "https://x.com/jack/status/20/quotes",
      "https://x.com/jack/status/20/history",
    ]),
    // yt-dlp's own tests' links (extractor/twitter.py).
    ...samplesOf("post", "yt-dlp", "TwitterBroadcast", [
      "https://twitter.com/i/broadcasts/1yNGaQLWpejGj",
      "https://x.com/i/broadcasts/1ZkKzeyrPbaxv",
    ]),
    ...samplesOf("post", "yt-dlp", "TwitterSpaces", [
      "https://twitter.com/i/spaces/1OwxWwQOPlNxQ",
      "https://x.com/i/spaces/1DXGydznBYWKM",
      "https://x.com/i/spaces/1DXGydznBYWKM/peek",
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
