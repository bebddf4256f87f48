// An Instagram profile as gallery-dl 1.32's instagram extractor reads its posts tab (instagram.py:
// InstagramPostsExtractor -> InstagramAPI.user_feed), answered for test/fakes/photo-platforms.ts:
//   GET  /<user>/                       the profile's page: the `__eqmc` tokens (lsd, fb_dtsg), `"profile_id"` and
//                                       `"params":{"username"}`, and a script of static.cdninstagram.com to preload
//   GET  static.cdninstagram.com/rsrc.php/v4/yP/r/profile.js
//                                       the relay operations' doc ids (`__d("<op>_instagramRelayOperation",...)`) and
//                                       the posts query's providers (`__d("<op>.graphql",["<name>.relayprovider"]...`)
//   POST /api/graphql                   PolarisProfilePageContentQuery: the user (user_by_id)
//   POST /graphql/query                 PolarisProfilePostsTabContentQuery_connection: `first` posts after the
//                                       cursor `after`, newest first, with `page_info` (has_next_page, end_cursor)
//   GET  /api/v1/media/<id>/info/       one post, as a post link's item reads it
// Without a `sessionid` cookie every one of them is Instagram's login wall: a 302 to /accounts/login/.
// The posts are photo posts of the recorded media item's shape (test/fixtures/upstream/PROVENANCE.md).
import type { IncomingMessage, ServerResponse } from "node:http";

/** The profile: its user name, id and posts, newest first. */
export const instagramProfile = {
  username: "lakeside.photos",
  id: "48213379104",
  link: "https://www.instagram.com/lakeside.photos/",
  postCount: 30,
} as const;

export const instagramStaticHost = "static.cdninstagram.com";
const scriptPath = "/rsrc.php/v4/yP/r/profile.js";
const tokens = { lsd: "AVqfakeLsd93", dtsg: "NAcfakeDtsg:17:1731330000" } as const;
const docIds = {
  PolarisProfilePageContentQuery: "28717443601247930",
  PolarisProfilePostsTabContentQuery_connection: "28544666141895803",
} as const;

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** Instagram's media id of a shortcode (base 64 in its own alphabet). */
export const mediaIdOf = (shortcode: string) =>
  [...shortcode].reduce((id, c) => id * 64n + BigInt(alphabet.indexOf(c)), 0n).toString();

/** The shortcode of the profile's `n`th post (1 the newest). */
const shortcodeOf = (n: number) => `DAlake${String(n).padStart(2, "0")}Pst`;

/** The profile's post links, newest first, as gallery-dl names them (`post_url`). */
export const instagramProfilePosts = Array.from(
  { length: instagramProfile.postCount },
  (_, i) => `https://www.instagram.com/p/${shortcodeOf(i + 1)}/`,
);

type Json = Record<string, any>;

/** The `n`th post: the recorded carousel's first photo as a post of its own, owned by the profile. */
function postNode(photo: Json, n: number): Json {
  const code = shortcodeOf(n);
  const pk = mediaIdOf(code);
  const takenAt = 1731330000 - n * 86_400;
  const user = { pk: instagramProfile.id, id: instagramProfile.id, username: instagramProfile.username };
  return {
    ...photo,
    pk,
    id: `${pk}_${instagramProfile.id}`,
    code,
    taken_at: takenAt,
    media_type: 1,
    product_type: "feed",
    caption: { pk: `1790000000${String(n).padStart(7, "0")}`, text: `Lake, day ${n}`, created_at: takenAt },
    user: { ...user, full_name: "Lakeside Photos", is_private: false },
    owner: user,
    like_count: 100 + n,
    comment_count: n,
  };
}

const profilePage = () =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
  `<title>Lakeside Photos (@${instagramProfile.username}) • Instagram photos and videos</title>` +
  `<link rel="preload" href="https://${instagramStaticHost}${scriptPath}" as="script" crossorigin="anonymous" />` +
  `<script type="application/json" id="__eqmc">${
    JSON.stringify({ u: "/ajax/qm/?__a=1&__user=0", f: tokens.dtsg, l: tokens.lsd })
  }</script>` +
  `<script type="application/json">${
    JSON.stringify({
      require: [["PolarisProfilePageContentQuery", { profile_id: instagramProfile.id }]],
      params: { username: instagramProfile.username },
    })
  }</script></head><body></body></html>`;

const relayScript = () =>
  Object.entries(docIds).map(([op, id]) =>
    `__d("${op}_instagramRelayOperation",[],(function(a,b,c,d,e,f){e.exports="${id}"}),null);`
  ).join("\n") +
  `\n__d("PolarisProfilePostsTabContentQuery_connection.graphql",["PolarisSEOIsCrawler.relayprovider","PolarisShareSheetV3.relayprovider"],(function(a,b,c,d,e,f){}),null);`;

export interface InstagramProfileFake {
  /** Answers a request of Instagram's hosts that is the profile's; false for any other. */
  answer(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** The pages of posts asked for, as `after` cursors (null: the first). */
  pagesAsked: (string | null)[];
}

export function instagramProfileFake(recordedPhoto: Json): InstagramProfileFake {
  const posts = instagramProfilePosts.map((_, i) => postNode(recordedPhoto, i + 1));
  const byId = new Map(posts.map((post) => [post.pk as string, post]));
  const pagesAsked: (string | null)[] = [];
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  };

  function feedPage(variables: Json): Json {
    const after = typeof variables.after === "string" ? variables.after : null;
    pagesAsked.push(after);
    const start = after === null ? 0 : Number(Buffer.from(after, "base64url").toString().split(":")[1]);
    const page = posts.slice(start, start + Number(variables.first ?? 12));
    const end = start + page.length;
    const cursor = (at: number) => Buffer.from(`${instagramProfile.id}:${at}`).toString("base64url");
    return {
      xdt_api__v1__feed__user_timeline_graphql_connection: {
        edges: page.map((node, i) => ({ node, cursor: cursor(start + i + 1) })),
        page_info: { end_cursor: cursor(end), has_next_page: end < posts.length, has_previous_page: start > 0 },
      },
    };
  }

  async function graphql(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const form = new URLSearchParams(await bodyOf(req));
    const variables = JSON.parse(form.get("variables") ?? "{}") as Json;
    const op = form.get("fb_api_req_friendly_name");
    if (form.get("lsd") !== tokens.lsd || form.get("fb_dtsg") !== tokens.dtsg) {
      return json(res, { errors: [{ message: "A server error missing_required_variable_value occured." }] });
    }
    if (path === "/api/graphql" && op === "PolarisProfilePageContentQuery") {
      if (form.get("doc_id") !== docIds[op] || variables.id !== instagramProfile.id) return json(res, { data: {} });
      return json(res, {
        data: {
          user: {
            id: instagramProfile.id,
            pk: instagramProfile.id,
            username: instagramProfile.username,
            full_name: "Lakeside Photos",
            is_private: false,
            media_count: posts.length,
            friendship_status: { following: false },
          },
        },
        extensions: { is_final: true },
      });
    }
    if (path === "/graphql/query" && op === "PolarisProfilePostsTabContentQuery_connection") {
      if (form.get("doc_id") !== docIds[op] || variables.username !== instagramProfile.username) {
        return json(res, { data: {} });
      }
      return json(res, { data: feedPage(variables), extensions: { is_final: true } });
    }
    json(res, { data: {} });
  }

  return {
    pagesAsked,
    async answer(req, res, url) {
      if (url.hostname === instagramStaticHost) {
        if (url.pathname !== scriptPath) return false;
        res.writeHead(200, { "content-type": "application/javascript; charset=utf-8" });
        res.end(relayScript());
        return true;
      }
      const mediaId = /^\/api\/v1\/media\/(\d+)\/info\/$/.exec(url.pathname)?.[1];
      const ours = url.pathname === `/${instagramProfile.username}/` || url.pathname === "/api/graphql" ||
        url.pathname === "/graphql/query" || (mediaId !== undefined && byId.has(mediaId));
      if (!ours) return false;
      if (mediaId !== undefined) {
        json(res, { items: [byId.get(mediaId)], num_results: 1, more_available: false, status: "ok" });
        return true;
      }
      if (!/(?:^|;\s*)sessionid=[^;]+/.test(req.headers.cookie ?? "")) {
        // What Instagram does to a logged-out client on a profile: off to the login page.
        res.writeHead(302, { location: `https://www.instagram.com/accounts/login/?next=${url.pathname}` });
        res.end();
      } else if (req.method === "POST") {
        await graphql(req, res, url.pathname);
      } else {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(profilePage());
      }
      return true;
    },
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
