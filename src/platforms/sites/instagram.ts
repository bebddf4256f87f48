// Instagram: yt-dlp reads reels and videos, gallery-dl `/p/` posts (each photo and video as the CDN's file).
import { mirrorsOf, type Platform, samplesOf } from "../platform.ts";

/**
 * A profile and its posts tab: a user name (letters, digits, `.` and `_`) as the path's one segment; the first
 * segments of Instagram's other pages are none (gallery-dl's USER_PATTERN, and the pages it leaves to others).
 */
const profile = /^\/(?!(?:p|tv|reels?|explore|stories|accounts|direct|share)\/)([\w.]{1,30})(?:\/posts)?\/?$/;

export const instagram: Platform<"INSTAGRAM"> = {
  id: "INSTAGRAM",
  name: "Instagram",
  hosts: ["instagram.com"],
  mirrors: mirrorsOf("www.instagram.com", [
    "ddinstagram.com",
    "kkinstagram.com",
    "vxinstagram.com",
    "instagramez.com",
    "instagr.am",
  ]),
  // The app's share links (`/share/<id>`, `/share/p/<id>`, `/share/reel/<id>`), which redirect to the post, as cobalt
  // follows them.
  shortLinks: [{ host: "instagram.com", path: /^\/share\/(?:(?:p|reel)\/)?[\w-]{1,64}\/?$/ }],
  mediaHosts: ["cdninstagram.com", "fbcdn.net"],
  reader: "yt-dlp+gallery-dl",
  photoShape: /^\/(?:[^/]+\/)?p\/[^/]+/,
  collectionShape: profile,
  // gallery-dl reads a profile's page as its posts, stories and highlights; its posts tab as its posts alone.
  galleryDlListing: { shape: profile, postsPath: "/$1/posts/" },
  sessionCookies: ["sessionid"],
  // A video as one file, not a DASH manifest handed on to yt-dlp.
  galleryDlOptions: ["extractor.instagram.videos=merged"],
  referencePost: "https://www.instagram.com/p/aye83DjauH/",
  readBy: "yt-dlp + gallery-dl (`/p/` posts)",
  samples: [
    ...samplesOf("photo", "gallery-dl", "instagram", ["https://www.instagram.com/p/aye83DjauH/"]),
    ...samplesOf("post", "yt-dlp", "Instagram", ["https://www.instagram.com/reel/Chunk8-jurw/"]),
    ...samplesOf("collection", "gallery-dl", "instagram", [
      "https://www.instagram.com/instagram/",
      "https://www.instagram.com/instagram/posts/",
    ]),
    ...samplesOf("short", "service", null, [
      "https://www.instagram.com/share/BAHtk2AamB",
      "https://www.instagram.com/share/reel/BAHtk2AamB",
    ]),
    ...samplesOf("mirror", "yt-dlp", "Instagram", [
      "https://www.ddinstagram.com/reel/Chunk8-jurw/",
      "https://kkinstagram.com/reel/Chunk8-jurw/",
      "https://vxinstagram.com/reel/Chunk8-jurw/",
      "https://instagramez.com/reel/Chunk8-jurw/",
      "https://instagr.am/reel/Chunk8-jurw/",
    ]),
  ],
};
