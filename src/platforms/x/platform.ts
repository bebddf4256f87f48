// X (Twitter): read by the service's own X client (x/reader.ts), a video X offers only as HLS through yt-dlp; live
// broadcasts and Spaces, which X's post APIs do not hold, by yt-dlp (its twitter:broadcast and twitter:spaces).
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

export const x: Platform<"X"> = {
  id: "X",
  name: "X (Twitter)",
  cobaltName: "twitter",
  // amp.twimg.com: X's Amplify video player, whose links (`/v/<uuid>`) name a publisher's video, not a post.
  hosts: ["twitter.com", "x.com", "amp.twimg.com"],
  // FxEmbed's, BetterTwitFix's and their forks' hosts, as cobalt, FxEmbed and people's share links name them; Nitter's
  // own instance and xcancel.com, the Nitter instance people share most (yt-dlp's Nitter, gallery-dl's xcancel).
  mirrors: mirrorsOf("x.com", [
    "fxtwitter.com",
    "fixupx.com",
    "vxtwitter.com",
    "fixvx.com",
    "twittpr.com",
    "nitter.net",
    "xcancel.com",
  ]),
  // A photo's file, as X's web client opens it in a tab: `/media/<id>?format=jpg&name=orig`, or `/media/<id>.jpg`
  // with an optional `:<size>`.
  mediaFiles: [{ host: "pbs.twimg.com", path: /^\/media\/[\w-]{1,64}(?:\.(?:jpe?g|png|webp|gif)(?::\w{1,8})?)?$/ }],
  reader: "x",
  shapeReaders: [
    // A live broadcast or an event's (HLS video) and a Space (its recording, HLS audio); a Space's listener view adds
    // `/peek`.
    { path: /^\/i\/(?:broadcasts|events)\/\w{1,64}\/?$/, reader: "yt-dlp" },
    { path: /^\/i\/spaces\/[0-9a-zA-Z]{13}(?:\/peek)?\/?$/, reader: "yt-dlp" },
    { path: /^\/v\/[0-9a-f-]{36}\/?$/, reader: "yt-dlp" },
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
      // The mobile site's media viewer, as cobalt's tests hold its link.
      "https://mobile.twitter.com/jack/status/20/mediaViewer?currentTweet=20&currentTweetUser=jack",
    ]),
    // A card's and an old video player's link of a post (yt-dlp's own tests' links).
    ...samplesOf("post", "yt-dlp", "TwitterCard", [
      "https://twitter.com/i/cards/tfw/v1/560070183650213889",
      "https://twitter.com/i/videos/tweet/705235433198714880",
      "https://twitter.com/i/videos/752274308186120192",
    ]),
    // A bookmarked post's link, which no tool's extractor takes (cobalt's tests hold one).
    ...samplesOf("post", "service", null, ["https://x.com/i/bookmarks?post_id=1828099210220294314"]),
    ...samplesOf("post", "yt-dlp", "TwitterAmplify", ["https://amp.twimg.com/v/0ba0c3c7-0af3-4c0a-bed5-7efd1ffa2951"]),
    // yt-dlp's own tests' links (extractor/twitter.py).
    ...samplesOf("post", "yt-dlp", "TwitterBroadcast", [
      "https://twitter.com/i/broadcasts/1yNGaQLWpejGj",
      "https://x.com/i/broadcasts/1ZkKzeyrPbaxv",
      "https://x.com/i/events/1910629646300762112",
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
      "https://nitter.net/jack/status/20",
      "https://xcancel.com/jack/status/20",
    ]),
    // A photo's file (gallery-dl's twitter extractor takes it too).
    ...samplesOf("file", "gallery-dl", "twitter", [
      "https://pbs.twimg.com/media/EqZpsRTWMAAQpXu?format=jpg&name=orig",
      "https://pbs.twimg.com/media/EqZpsRTWMAAQpXu.jpg",
      "https://pbs.twimg.com/media/EqZpsRTWMAAQpXu.jpg:large",
    ]),
    ...samplesOf("collection", "gallery-dl", "twitter", [
      "https://x.com/jack",
      "https://x.com/jack/media",
      "https://x.com/i/lists/123",
    ]),
  ],
};
