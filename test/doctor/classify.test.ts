// The platform check's pure parts: which reference posts it checks, how a failure is classed and
// what an operator's cookie file says about a platform's sign-in.
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.ts";
import { classifyFailure, type FailureContext } from "../../src/doctor/classify.ts";
import { failureContext } from "../../src/doctor/context.ts";
import { referencePosts } from "../../src/doctor/reference-posts.ts";
import { expiredSession } from "../../src/doctor/session-cookies.ts";
import { ApiError, upstreamFailed } from "../../src/http/problem.ts";
import { type GateSession, gateVerdict } from "../../src/net/egress-gate.ts";
import { platformList } from "../../src/platforms/list.ts";
import { blockedError } from "../../src/platforms/blocked.ts";
import { detectPlatform } from "../../src/platforms/table.ts";
import type { ToolProbe } from "../../src/processes/tools.ts";
import { happening } from "../../src/util/event.ts";
import { classifyYtdlpFailure } from "../../src/platforms/tools/ytdlp/errors.ts";

const posts = (value: string, extraHosts = "") => {
  const config = parseConfig({ PLATFORM_CHECK_POSTS: value, EXTRA_PAGE_HOSTS: extraHosts });
  return referencePosts(config.PLATFORM_CHECK_POSTS, config.EXTRA_PAGE_HOSTS).map(({ site, url }) => [site, url.href]);
};

describe("the reference posts", () => {
  it("are one public post of each platform of the table that has one by default, each detected as that platform", () => {
    expect(posts("").map(([site]) => site)).toEqual(
      platformList.filter((row) => row.referencePost !== null).map(({ id }) => id),
    );
    for (const { id, referencePost } of platformList) {
      if (referencePost !== null) expect(detectPlatform(new URL(referencePost), [])).toBe(id);
    }
    // Xiaohongshu's links expire with their token: its check is the operator's to name.
    expect(posts("").map(([site]) => site)).not.toContain("XIAOHONGSHU");
    expect(posts("XIAOHONGSHU=https://www.xiaohongshu.com/explore/674051740000000007027a15?xsec_token=t"))
      .toContainEqual(["XIAOHONGSHU", "https://www.xiaohongshu.com/explore/674051740000000007027a15?xsec_token=t"]);
  });

  it("are replaced or dropped per platform, and extended by posts on the extra page hosts, named by their entry", () => {
    const checked = posts(
      "YOUTUBE=http://127.0.0.1:8123/bot.html, VIMEO=off ,X=off,http://mirror.example/p/1",
      "127.0.0.1:8123,mirror.example",
    );
    expect(checked.find(([site]) => site === "YOUTUBE")).toEqual(["YOUTUBE", "http://127.0.0.1:8123/bot.html"]);
    expect(checked.map(([site]) => site)).not.toContain("VIMEO");
    expect(checked.map(([site]) => site)).not.toContain("X");
    expect(checked.at(-1)).toEqual(["mirror.example", "http://mirror.example/p/1"]);
  });

  it("stop start-up when an entry is not understood or a bare URL is on no extra page host", () => {
    expect(() => parseConfig({ PLATFORM_CHECK_POSTS: "MYSPACE=https://myspace.com/x" })).toThrow(
      /PLATFORM_CHECK_POSTS: .*MYSPACE=/,
    );
    expect(() => parseConfig({ PLATFORM_CHECK_POSTS: "YOUTUBE=ftp://x" })).toThrow(/PLATFORM_CHECK_POSTS/);
    expect(() => posts("https://elsewhere.example/v/1", "mirror.example")).toThrow(ConfigError);
    expect(() => posts("https://www.youtube.com/watch?v=x")).toThrow(/PLATFORM=url/);
  });
});

describe("a failed check", () => {
  const ytdlp: FailureContext = {
    extractor: "yt-dlp 2026.10.26 (30 days old)",
    update: "update the media tools",
    expiredSession: null,
  };

  it("is blocked with the remedy when yt-dlp met a bot check, or cookies_expired when the operator's sign-in has expired", () => {
    const bot = classifyYtdlpFailure(1, "ERROR: [youtube] x: Sign in to confirm you’re not a bot. Use --cookies\n");
    expect(classifyFailure(bot, ytdlp)).toMatchObject({
      status: "blocked",
      detail: expect.stringContaining("with a bot check"),
      remedy: expect.stringMatching(/COOKIES_FILE.*OUTBOUND_PROXY/),
    });
    const expired = classifyFailure(bot, {
      ...ytdlp,
      expiredSession: "the session cookie SID of .youtube.com in COOKIES_FILE expired 2021-01-01T00:00:00.000Z",
    });
    expect(expired).toMatchObject({
      status: "cookies_expired",
      detail: expect.stringMatching(/^the session cookie SID .*; the platform answered with a bot check/),
    });
  });

  it("is unreachable when the network failed: the gate's words, X's fetch, a time cap", () => {
    const session = {
      refusal: () => null,
      overBudget: () => null,
      failure: () => "www.youtube.com:443: host not found (getaddrinfo ENOTFOUND www.youtube.com)",
    } as unknown as GateSession;
    const gate = gateVerdict(
      session,
      classifyYtdlpFailure(1, "ERROR: [youtube] x: Unable to download webpage: HTTP Error 502: Bad Gateway\n"),
    );
    expect(classifyFailure(gate, ytdlp)).toMatchObject({
      status: "unreachable",
      detail: expect.stringMatching(
        /^the egress gate could not connect to www\.youtube\.com:443: host not found .*HTTP Error 502/,
      ),
    });
    const dns = Object.assign(new Error("getaddrinfo ENOTFOUND cdn.syndication.twimg.com"), { code: "ENOTFOUND" });
    const xFetch = upstreamFailed("X could not be reached", { cause: new TypeError("fetch failed", { cause: dns }) });
    expect(classifyFailure(xFetch, ytdlp)).toMatchObject({
      status: "unreachable",
      detail: expect.stringMatching(/^host not found: .*ENOTFOUND/),
    });
    expect(classifyFailure(new ApiError("upstream_timeout", "no answer"), ytdlp).status).toBe("unreachable");
  });

  it("is broken, naming the extractor's version and age, when the extractor no longer reads the post", () => {
    const unsupported = classifyYtdlpFailure(1, "ERROR: Unsupported URL: https://www.dailymotion.com/video/x2iuewm\n");
    expect(classifyFailure(unsupported, ytdlp)).toEqual({
      status: "broken",
      detail:
        "yt-dlp 2026.10.26 (30 days old) could not read the reference post: Unsupported URL: https://www.dailymotion.com/video/x2iuewm",
      remedy: "platforms change and their extractors follow: update the media tools",
    });
    const gone = classifyYtdlpFailure(1, "ERROR: [vimeo] 1: HTTP Error 404: Not Found\n");
    expect(classifyFailure(gone, ytdlp).remedy).toContain("choose another (PLATFORM_CHECK_POSTS)");
  });
});

describe("the operator's sign-in cookies", () => {
  const now = new Date("2026-11-25T00:00:00Z");
  const line = (domain: string, name: string, expiry: number) =>
    `${domain}\tTRUE\t/\tTRUE\t${expiry}\t${name}\tsecret-value`;
  const past = Date.parse("2026-01-01T00:00:00Z") / 1000;
  const future = Date.parse("2027-01-01T00:00:00Z") / 1000;

  it("are expired when every session cookie of the platform is past its own expiry, naming it and not its value", () => {
    const text = [
      "# Netscape HTTP Cookie File",
      `#HttpOnly_${line(".instagram.com", "sessionid", past)}`,
      line(".instagram.com", "csrftoken", future),
    ].join("\n");
    const said = expiredSession(text, "INSTAGRAM", now);
    expect(said).toBe(
      "the session cookie sessionid of .instagram.com in COOKIES_FILE expired 2026-01-01T00:00:00.000Z",
    );
    expect(said).not.toContain("secret-value");
  });

  it("say nothing when a session cookie is live, has no expiry, belongs to another site, or the platform's sign-in cookie is unknown", () => {
    expect(
      expiredSession(
        [line(".youtube.com", "SID", past), line(".youtube.com", "__Secure-3PSID", future)].join("\n"),
        "YOUTUBE",
        now,
      ),
    ).toBeNull();
    expect(expiredSession(line(".tiktok.com", "sessionid", 0), "TIKTOK", now)).toBeNull();
    expect(expiredSession(line(".instagram.com.evil.example", "sessionid", past), "INSTAGRAM", now)).toBeNull();
    expect(expiredSession(line(".dailymotion.com", "sessionid", past), "DAILYMOTION", now)).toBeNull();
    expect(expiredSession(line(".x.com", "auth_token", past), "127.0.0.1:8123", now)).toBeNull();
  });
});

describe("what a failed check names as the reader", () => {
  const version = (text: string) => ({ path: "/usr/bin/x", version: text, failure: null });
  const tools: ToolProbe = {
    current: async () => ({
      "yt-dlp": version("2026.10.26"),
      "gallery-dl": version("1.32.19"),
      ffmpeg: version("ffmpeg version 5.1"),
    }),
    changed: happening(),
  };
  const contextOf = failureContext({ tools, cookies: undefined, now: () => new Date("2026-11-25T00:00:00Z") });

  it("the media tools with their age for the platforms they read, the service itself for those it reads", async () => {
    expect(await contextOf("YOUTUBE")).toMatchObject({
      extractor: "yt-dlp 2026.10.26 (30 days old)",
      update: expect.stringContaining("--update-tools"),
    });
    expect(await contextOf("X")).toMatchObject({ extractor: "the X client" });
    for (const [site, name] of [["BLUESKY", "Bluesky"], ["XIAOHONGSHU", "Xiaohongshu (RedNote)"]]) {
      expect(await contextOf(site!)).toMatchObject({
        extractor: `the ${name} reader`,
        update: `${name} posts are read by this service itself, not by the media tools: update the service`,
      });
    }
  });
});

describe("the blocked row names the remedy that is missing", () => {
  const refused = blockedError("ERROR: [youtube] x: Sign in to confirm you're not a bot", "yt-dlp", "bot check")!;
  const base = { extractor: "yt-dlp 2026.10.26", update: "update", expiredSession: null };

  it("names a missing jar, proxy and token server for YouTube", () => {
    const verdict = classifyFailure(refused, {
      ...base,
      remedies: { platform: "YOUTUBE", jar: null, proxies: null, tokenServer: false },
    });
    expect(verdict.status).toBe("blocked");
    expect(verdict.remedy).toMatch(
      /^missing: a cookie jar \(COOKIES_DIR\/youtube\/\*\.txt, or COOKIES_FILE_YOUTUBE\); a proxy with a better address \(OUTBOUND_PROXY_YOUTUBE, or OUTBOUND_PROXY\); a PO token server \(PO_TOKEN_URL\)/,
    );
  });

  it("says which account and proxy were set aside, and that a jar all set aside is what is missing", () => {
    const verdict = classifyFailure(refused, {
      ...base,
      remedies: {
        platform: "INSTAGRAM",
        jar: { accounts: 1, setAside: ["alice until 2026-11-28T23:30:00.000Z (a sign-in)"] },
        proxies: { count: 2, setAside: ["10.0.0.5:1080 until 2026-11-28T23:30:00.000Z"] },
        tokenServer: null,
      },
    });
    expect(verdict.remedy).toMatch(/^missing: an account its platform has not refused \(all 1 are set aside\);/);
    expect(verdict.remedy).not.toMatch(/proxy with a better address|token server/);
    expect(verdict.detail).toContain(
      "set aside: account alice until 2026-11-28T23:30:00.000Z (a sign-in), proxy 10.0.0.5:1080 until 2026-11-28T23:30:00.000Z",
    );
  });

  it("says whether each remedy answered: the token server now, each proxy when last used", () => {
    const remedies = {
      platform: "YOUTUBE",
      jar: { accounts: 2, setAside: [] },
      proxies: {
        count: 2,
        setAside: ["10.0.0.6:3128 until 2026-11-28T23:30:00.000Z (connection refused)"],
        heard: [
          "10.0.0.5:1080 answered at 2026-11-28T23:00:00.000Z",
          "10.0.0.6:3128 failed at 2026-11-28T23:00:00.000Z (connection refused)",
        ],
      },
      tokenServer: true,
    };
    const answering = classifyFailure(refused, { ...base, remedies: { ...remedies, tokenServerFault: null } });
    expect(answering.remedy).toMatch(/^a jar, a proxy and a token server are set/);
    expect(answering.detail).toContain(
      "; remedies heard: token server answered, proxy 10.0.0.5:1080 answered at 2026-11-28T23:00:00.000Z, proxy 10.0.0.6:3128 failed at 2026-11-28T23:00:00.000Z (connection refused)",
    );
    const down = classifyFailure(refused, {
      ...base,
      remedies: { ...remedies, tokenServerFault: "did not answer within 6000 ms (timed out)" },
    });
    expect(down.remedy).toMatch(
      /^missing: a PO token server that answers \(PO_TOKEN_URL did not answer within 6000 ms \(timed out\)\)/,
    );
    expect(down.detail).toContain("token server did not answer within 6000 ms (timed out)");
  });
});
