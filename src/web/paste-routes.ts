// The paste page: the owner pastes a post's link and sees the post with its downloads, whole or
// clipped, and the sound of each video as MP3. The look is the API's `post` called as the key the
// owner chooses (owner-api.ts); the downloads are the record's signed links, with a clip's bounds
// and `audio` added on the same terms. The look is a post with the form's CSRF token: a GET only
// shows the form, so a link or a page of another site cannot spend the owner's quota or load its
// pictures.
import { parseClipTime } from "../http/clip-range.ts";
import { linkBase } from "../auth/link-caller.ts";
import { type LinkedPostMediaItem, LinkedPostRecord } from "../platforms/records.ts";
import type { Route } from "../http/router.ts";
import { htmlResponse, securityHeaders } from "./html.ts";
import { noKeyProblem, ownerApi, withMoreParams } from "./owner-api.ts";
import { pastePage, type PasteView } from "./paste-page.ts";
import type { OwnerRequest, Site, SiteHandler } from "./site.ts";

export const PASTE_PAGE = "/paste";

// The post's pictures come from the platform's servers: the one page that shows images of other
// origins. A video with no poster plays from our own signed link.
export const pastePolicy = securityHeaders["content-security-policy"]!.replace(
  "img-src 'self'",
  "img-src 'self' https: http:; media-src 'self'",
);

/** The clip's bounds as `download` takes them, or the words of what is wrong with them. */
export function clipOf(start: string, end: string): { params: Record<string, string> } | { error: string } {
  const params: Record<string, string> = {};
  for (const [name, text] of [["start", start], ["end", end]] as const) {
    if (!text) continue;
    if (parseClipTime(text) === null) {
      return { error: `Clip ${name === "start" ? "from" : "to"}: write seconds (75.5) or a time as 1:15.5.` };
    }
    params[name] = text;
  }
  if (params.start && params.end && parseClipTime(end)! <= parseClipTime(start)!) {
    return { error: "Clip to: the clip must end after it starts." };
  }
  return { params };
}

/** The page's view of the post: every moving item's links cut to the clip, and a video's sound as MP3 (a GIF has none). */
async function postWithClip(site: Site, post: LinkedPostRecord, clip: Record<string, string>) {
  const cut = (link: string) => Object.keys(clip).length === 0 ? link : withMoreParams(site, link, clip);
  const media = await Promise.all(post.media.map(async (item): Promise<LinkedPostMediaItem> => {
    if (item.type === "photo") return item;
    const videoVariants = await Promise.all(
      item.videoVariants.map(async (variant) => ({ ...variant, downloadUrl: await cut(variant.downloadUrl) })),
    );
    return { ...item, downloadUrl: await cut(item.downloadUrl), videoVariants };
  }));
  const audioUrls = await Promise.all(
    post.media.map((item) =>
      item.type === "video" ? withMoreParams(site, item.downloadUrl, { ...clip, audio: "mp3" }) : null
    ),
  );
  return { post: { ...post, media }, audioUrls };
}

export function pasteRoutes(site: Site): Route<SiteHandler>[] {
  const api = ownerApi(site);

  const handle = site.signedIn(async (ctx: OwnerRequest) => {
    const keys = await api.usableKeys(ctx);
    const asked = ctx.request.method === "POST" ? ctx.form : ctx.url.searchParams;
    const link = (asked.get("url") ?? "").trim();
    const keyId = asked.get("key") ?? keys[0]?.id;
    const clip = { start: (asked.get("start") ?? "").trim(), end: (asked.get("end") ?? "").trim() };
    const view: PasteView = {
      owner: ctx.caller.owner,
      keys,
      link,
      keyId,
      clip,
      apiBase: linkBase(site.deps, ctx.request),
    };
    const render = (more: Partial<PasteView>, status = 200) =>
      htmlResponse(pastePage({ ...view, ...more }), { status, headers: { "content-security-policy": pastePolicy } });
    if (ctx.request.method !== "POST" || !link) return render({});
    const bounds = clipOf(clip.start, clip.end);
    if ("error" in bounds) return render({ error: bounds.error }, 400);
    const key = await api.keyFor(ctx, keys, keyId ?? null);
    if (!key) {
      const { status, error } = noKeyProblem(keys.length);
      return render({ error }, status);
    }
    const shown = { keys: keys.length > 0 ? keys : [key], keyId: key.id };
    const answer = await api.call(ctx, key, "/api/v1/post", { params: { url: link } });
    const body = await answer.json();
    if (!answer.ok) return render({ ...shown, error: String(body.detail ?? body.title) }, answer.status);
    return render({ ...shown, ...(await postWithClip(site, LinkedPostRecord.parse(body), bounds.params)) });
  });

  return [
    { method: "GET", path: PASTE_PAGE, handler: handle },
    { method: "POST", path: PASTE_PAGE, handler: handle },
  ];
}
