import { describe, expect, it } from "vitest";
import {
  contentDisposition,
  extensionForContentType,
  nameFromMediaUrl,
  sanitizeFilename,
} from "../../src/media/filename.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe("sanitizeFilename()", () => {
  it("keeps an ordinary name and adds the extension", () => {
    expect(sanitizeFilename("holiday clip", "mp4")).toBe("holiday clip.mp4");
  });

  it("replaces path separators so the name cannot leave the download folder", () => {
    expect(sanitizeFilename("../../etc/passwd", "jpg")).toBe("_.._etc_passwd.jpg");
    expect(sanitizeFilename("..\\..\\boot.ini", "jpg")).toBe("_.._boot.ini.jpg");
  });

  it("replaces control characters and Windows-reserved punctuation", () => {
    expect(sanitizeFilename('a\u0000b\u0007c\u001bd\u007fe\u009ff<g>h:i"j|k?l*m', "mp4")).toBe(
      "a_b_c_d_e_f_g_h_i_j_k_l_m.mp4",
    );
  });

  it("makes line breaks and tabs spaces, as in a post's title", () => {
    expect(sanitizeFilename("First line\r\nsecond\n\nthird\tfourth\u0085fifth\u2028sixth\u2029", "mp4")).toBe(
      "First line second third fourth fifth sixth.mp4",
    );
  });

  it("removes bidirectional overrides that would disguise the extension", () => {
    expect(sanitizeFilename("photo\u202Egpj.exe", "jpg")).toBe("photogpj.exe.jpg");
  });

  it("removes format characters (Cf) and noncharacters, but not the joiner inside an emoji", () => {
    const hidden = "a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg\u061ch\u{e0041}i\ufdd0j\ufffek\u{1ffff}l\u{10fffe}m";
    expect(sanitizeFilename(hidden, "mp4")).toBe("abcdefghijklm.mp4");
    expect(sanitizeFilename("cook \u{1f9d1}\u200d\u{1f373} \u2764\ufe0f\u200d\u{1f525}", "mp4")).toBe(
      "cook \u{1f9d1}\u200d\u{1f373} \u2764\ufe0f\u200d\u{1f525}.mp4",
    );
  });

  it("drops leading dots and trailing dots or spaces", () => {
    expect(sanitizeFilename("...hidden", "mp4")).toBe("hidden.mp4");
    expect(sanitizeFilename("name. . ", "mp4")).toBe("name.mp4");
  });

  it("prefixes Windows reserved device names, with or without an extension", () => {
    expect(sanitizeFilename("CON", "mp4")).toBe("_CON.mp4");
    expect(sanitizeFilename("lpt1.backup", "mp3")).toBe("_lpt1.backup.mp3");
    expect(sanitizeFilename("nul ", "jpg")).toBe("_nul.jpg");
    expect(sanitizeFilename("console", "mp4")).toBe("console.mp4");
  });

  it("forces the extension of what is sent, replacing a media extension the caller gave", () => {
    expect(sanitizeFilename("clip.mov", "mp4")).toBe("clip.mp4");
    expect(sanitizeFilename("clip.MP4", "mp4")).toBe("clip.mp4");
    expect(sanitizeFilename("song.mp4", "mp3")).toBe("song.mp3");
    expect(sanitizeFilename("report.v2", ".JPEG")).toBe("report.v2.jpg");
    expect(sanitizeFilename("x", "")).toBe("x.bin");
  });

  it("falls back to a name when nothing usable is left", () => {
    expect(sanitizeFilename("", "mp4")).toBe("download.mp4");
    expect(sanitizeFilename(" . .. ", "jpg")).toBe("download.jpg");
    expect(sanitizeFilename(".mp4", "mp4")).toBe("download.mp4");
    expect(sanitizeFilename("clip.mov. ", "mp4")).toBe("clip.mp4");
  });

  it("keeps non-ASCII text, normalized to NFC", () => {
    expect(sanitizeFilename("Cafe\u0301 日本語 🎬", "mp4")).toBe("Café 日本語 🎬.mp4");
  });

  it("cuts a long name to 200 bytes of UTF-8 without splitting a character", () => {
    const ascii = sanitizeFilename("a".repeat(500), "mp4");
    expect(ascii).toBe(`${"a".repeat(196)}.mp4`);
    expect(bytes(ascii)).toBe(200);

    const cjk = sanitizeFilename("語".repeat(100), "mp4"); // 3 bytes each
    expect(cjk).toBe(`${"語".repeat(65)}.mp4`);
    expect(bytes(cjk)).toBe(199);

    // A family emoji is one grapheme of 25 bytes: it is kept whole or dropped whole.
    const family = "👨‍👩‍👧‍👦";
    const emoji = sanitizeFilename(family.repeat(10), "mp4");
    expect(emoji).toBe(`${family.repeat(7)}.mp4`);
    expect(bytes(emoji)).toBeLessThanOrEqual(200);
  });
});

describe("contentDisposition()", () => {
  it("puts no path separator, reserved character or hidden-file dot back when it folds to ASCII", () => {
    const fallback = (name: string) => /filename="([^"]*)"/.exec(contentDisposition(sanitizeFilename(name, "mp4")))![1];
    expect(fallback("..／..／etc／passwd")).toBe("_.._etc_passwd.mp4");
    expect(fallback("a：b＼c＊d？")).toBe("a_b_c_d_.mp4");
    expect(fallback("．hidden")).toBe("hidden.mp4");
    expect(fallback("ＣＯＮ")).toBe("_CON.mp4");
    expect(fallback("Café")).toBe("Cafe.mp4");
  });

  it("sends an ASCII name unchanged in both parameters", () => {
    expect(contentDisposition("clip.mp4")).toBe(`attachment; filename="clip.mp4"; filename*=UTF-8''clip.mp4`);
  });

  it("sends an ASCII fallback and the exact UTF-8 name percent-encoded (RFC 5987)", () => {
    expect(contentDisposition("Café 日本.mp4")).toBe(
      `attachment; filename="Cafe __.mp4"; filename*=UTF-8''Caf%C3%A9%20%E6%97%A5%E6%9C%AC.mp4`,
    );
  });

  it("never lets quotes, backslashes or percent signs break the header", () => {
    const header = contentDisposition(`a"b\\c%41'(d)*.mp4`);
    expect(header).toBe(`attachment; filename="a_b_c_41'(d)_.mp4"; filename*=UTF-8''a%22b%5Cc%2541%27%28d%29%2A.mp4`);
  });

  it("round-trips the exact name through decodeURIComponent", () => {
    const name = "🎬 100% ‘quoted’ #1.mp4";
    const encoded = contentDisposition(name).split("filename*=UTF-8''")[1]!;
    expect(decodeURIComponent(encoded)).toBe(name);
  });
});

describe("nameFromMediaUrl()", () => {
  it("takes the pbs media id and the format parameter", () => {
    expect(nameFromMediaUrl(new URL("https://pbs.twimg.com/media/GMxYz1aW8AA?format=jpg&name=orig"))).toEqual({
      stem: "GMxYz1aW8AA",
      ext: "jpg",
    });
  });

  it("takes the last segment of a video path and drops the query", () => {
    expect(
      nameFromMediaUrl(new URL("https://video.twimg.com/ext_tw_video/1/pu/vid/avc1/720x1280/AbC_d.mp4?tag=12")),
    ).toEqual({ stem: "AbC_d", ext: "mp4" });
  });

  it("decodes percent-encoding and reports no extension when the URL implies none", () => {
    expect(nameFromMediaUrl(new URL("https://ton.twimg.com/a/my%20file"))).toEqual({ stem: "my file", ext: null });
  });
});

describe("extensionForContentType()", () => {
  it("maps media types, ignoring parameters and case", () => {
    expect(extensionForContentType("video/mp4")).toBe("mp4");
    expect(extensionForContentType("Image/JPEG; charset=binary")).toBe("jpg");
    expect(extensionForContentType("audio/mpeg")).toBe("mp3");
    expect(extensionForContentType("application/octet-stream")).toBeNull();
    expect(extensionForContentType(null)).toBeNull();
  });
});
