import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.ts";

describe("parseConfig()", () => {
  it("gives the documented defaults", () => {
    expect(parseConfig({})).toMatchObject({
      PORT: 8080,
      HOST: "0.0.0.0",
      DATA_DIR: "./data",
      CORS_ORIGIN: "*",
      LOG_LEVEL: "info",
    });
    expect(parseConfig({}).DATABASE_URL).toBeUndefined();
    expect(parseConfig({}).SIGNUP).toBe("open");
  });

  it("gives downloads 10 s to finish on shutdown unless told otherwise, 0 meaning none", () => {
    expect(parseConfig({}).SHUTDOWN_GRACE_MS).toBe(10_000);
    expect(parseConfig({ SHUTDOWN_GRACE_MS: "0" }).SHUTDOWN_GRACE_MS).toBe(0);
    expect(() => parseConfig({ SHUTDOWN_GRACE_MS: "-1" })).toThrow(/SHUTDOWN_GRACE_MS/);
  });

  it("cuts a download whose source is quiet for 30 s unless told otherwise, 0 meaning never", () => {
    expect(parseConfig({}).DOWNLOAD_IDLE_TIMEOUT_S).toBe(30);
    expect(parseConfig({ DOWNLOAD_IDLE_TIMEOUT_S: "0" }).DOWNLOAD_IDLE_TIMEOUT_S).toBe(0);
    expect(() => parseConfig({ DOWNLOAD_IDLE_TIMEOUT_S: "-1" })).toThrow(/DOWNLOAD_IDLE_TIMEOUT_S/);
  });

  it("caps what yt-dlp describes of a page with several media at 20 items unless told otherwise, 1 to 100", () => {
    expect(parseConfig({}).PLAYLIST_MAX_ITEMS).toBe(20);
    expect(parseConfig({ PLAYLIST_MAX_ITEMS: "5" }).PLAYLIST_MAX_ITEMS).toBe(5);
    expect(() => parseConfig({ PLAYLIST_MAX_ITEMS: "0" })).toThrow(/PLAYLIST_MAX_ITEMS/);
    expect(() => parseConfig({ PLAYLIST_MAX_ITEMS: "101" })).toThrow(/PLAYLIST_MAX_ITEMS/);
  });

  it("treats empty values as unset and coerces numbers", () => {
    expect(parseConfig({ PORT: "", HOST: "127.0.0.1" })).toMatchObject({ PORT: 8080, HOST: "127.0.0.1" });
    expect(parseConfig({ PORT: "9000" }).PORT).toBe(9000);
  });

  it("names the variable, the value and what it accepts", () => {
    expect(() => parseConfig({ PORT: "70000" })).toThrow(ConfigError);
    expect(() => parseConfig({ PORT: "70000" })).toThrow(/PORT: .*"70000".*TCP port/);
    expect(() => parseConfig({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL: .*"loud"/);
    expect(() => parseConfig({ DATABASE_URL: "http://db" })).toThrow(/DATABASE_URL/);
    expect(parseConfig({ SIGNUP: "closed" }).SIGNUP).toBe("closed");
    expect(() => parseConfig({ SIGNUP: "maybe" })).toThrow(/SIGNUP: .*"maybe".*open or closed/);
  });

  it("takes TRUST_PROXY addresses and blocks, and names an entry that is neither", () => {
    expect(parseConfig({}).TRUST_PROXY).toEqual([]);
    expect(parseConfig({ TRUST_PROXY: "127.0.0.1, 10.0.0.0/8" }).TRUST_PROXY).toHaveLength(2);
    expect(() => parseConfig({ TRUST_PROXY: "127.0.0.1,proxy.local" })).toThrow(
      /TRUST_PROXY: "proxy.local" is not an IP address/,
    );
  });

  it("refuses an EXTRA_PAGE_HOSTS entry that is no host instead of ignoring it", () => {
    expect(parseConfig({ EXTRA_PAGE_HOSTS: " Example.org, 127.0.0.1:18306 ,[::1],media.example.net" }).EXTRA_PAGE_HOSTS)
      .toEqual([
        "example.org",
        "127.0.0.1:18306",
        "[::1]",
        "media.example.net",
      ]);
    for (
      const bad of [
        "https://example.org",
        "example.org/videos",
        "exa mple.org",
        "user@example.org",
        "example.org:99999",
        "[::1",
      ]
    ) {
      expect(() => parseConfig({ EXTRA_PAGE_HOSTS: `ok.example,${bad}` }), bad).toThrow(
        /EXTRA_PAGE_HOSTS: .*is not a host/,
      );
    }
  });

  it("reads COOKIES_FILE_<PLATFORM> and OUTBOUND_PROXY_<PLATFORM> (a list), and refuses a name of no platform", () => {
    const config = parseConfig({
      COOKIES_FILE_YOUTUBE: "/etc/media-api/yt.txt",
      OUTBOUND_PROXY_YOUTUBE: "socks5://u:secret@10.0.0.5:1080, http://10.0.0.6:3128",
    });
    expect(config.platformCookieFiles.get("YOUTUBE")).toBe("/etc/media-api/yt.txt");
    expect(config.platformProxies.get("YOUTUBE")?.map((proxy) => `${proxy.host}:${proxy.port}`)).toEqual([
      "10.0.0.5:1080",
      "10.0.0.6:3128",
    ]);
    expect(() => parseConfig({ OUTBOUND_PROXY_YOUTUBEE: "http://10.0.0.6:3128" })).toThrow(
      /OUTBOUND_PROXY_YOUTUBEE: YOUTUBEE is no platform of the table/,
    );
    const bad = () => parseConfig({ OUTBOUND_PROXY_X: "http://u:secret@10.0.0.6:3128,ftp://nope" });
    expect(bad).toThrow(/OUTBOUND_PROXY_X: is not a comma list/);
    expect(bad).not.toThrow(/secret/);
  });

  it("never shows the value of a variable that may hold a secret", () => {
    expect(() => parseConfig({ DATABASE_URL: "mysql://user:hunter2@db/x" })).toThrow(/DATABASE_URL: .*value not shown/);
    expect(() => parseConfig({ DATABASE_URL: "mysql://user:hunter2@db/x" })).not.toThrow(/hunter2/);
    expect(() => parseConfig({ METRICS_TOKEN: "short-secret" })).not.toThrow(/short-secret/);
  });
});
