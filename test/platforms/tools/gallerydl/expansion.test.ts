// gallery-dl's expansion of a profile, offline: which links it lists (the platform module's `galleryDlListing`) and
// the link it hands gallery-dl, and the posts of a listing cut at the job's limit. The listing through gallery-dl
// itself, with and without a session, is test/jobs/expansion.test.ts.
import { describe, expect, test } from "vitest";
import { listingExpansion, postsLinkOf } from "../../../../src/platforms/tools/gallerydl/expansion.ts";
import type { Link } from "../../../../src/platforms/source.ts";

const instagram = (url: string): Link => ({ url: new URL(url), platform: "INSTAGRAM" });

describe("postsLinkOf()", () => {
  test("a profile, or its posts tab, is listed as its posts tab", () => {
    for (const url of ["https://www.instagram.com/lake.side_1/", "https://www.instagram.com/lake.side_1/posts"]) {
      expect(postsLinkOf(instagram(url))?.href).toBe("https://www.instagram.com/lake.side_1/posts/");
    }
  });

  test("a post, a reel, Instagram's own pages and another platform's profile are not listed", () => {
    for (
      const url of [
        "https://www.instagram.com/p/C9kQ2mXoR3a/",
        "https://www.instagram.com/reel/Chunk8-jurw/",
        "https://www.instagram.com/explore/",
        "https://www.instagram.com/lake.side/reels/",
      ]
    ) {
      expect(postsLinkOf(instagram(url))).toBeNull();
    }
    expect(postsLinkOf({ url: new URL("https://www.tiktok.com/@breadlab"), platform: "TIKTOK" })).toBeNull();
  });
});

describe("listingExpansion()", () => {
  const listed = [1, 2, 3, 2].map((n) => ({ post_url: `https://www.instagram.com/p/C${n}/`, post_id: String(n) }));

  test("each post's link once, in the listing's order", () => {
    expect(listingExpansion(listed, 10)).toEqual({
      posts: [1, 2, 3].map((n) => new URL(`https://www.instagram.com/p/C${n}/`)),
      complete: true,
      incomplete: null,
    });
  });

  test("a listing past the limit is cut there and says so; a post without a web link is none", () => {
    expect(listingExpansion(listed, 2)).toMatchObject({
      posts: [new URL("https://www.instagram.com/p/C1/"), new URL("https://www.instagram.com/p/C2/")],
      complete: false,
      incomplete: "The profile has more posts than the 2 a job may hold.",
    });
    expect(listingExpansion([{ post_url: "javascript:alert(1)" }, { post_id: "4" }], 5).posts).toEqual([]);
  });
});
