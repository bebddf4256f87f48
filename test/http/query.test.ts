import { describe, expect, test } from "vitest";
import { ApiError } from "../../src/http/problem.ts";
import { DownloadQuery, parseQuery, PostQuery } from "../../src/http/query.ts";
import { buildOpenApiDocument } from "../../src/app/openapi.ts";

const query = (params: Record<string, string>) => new URLSearchParams(params);
const parseUrlParam = (raw: string | null | undefined) =>
  parseQuery(PostQuery, query(raw === null || raw === undefined ? {} : { url: raw })).url;

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("did not throw");
}

describe("parseQuery(): the url parameter", () => {
  test("returns the URL of an http(s) link", () => {
    expect(parseUrlParam(" https://youtu.be/abc?t=1 ").href).toBe("https://youtu.be/abc?t=1");
    expect(parseUrlParam("http://127.0.0.1:8080/a").port).toBe("8080");
  });

  test.each([
    null,
    undefined,
    "",
    "   ",
    "youtu.be/abc",
    "not a url",
    "ftp://example.com/a",
    "file:///etc/passwd",
    "javascript:alert(1)",
    `https://a.com/${"x".repeat(5000)}`,
    "https://a.com/\u0000x",
  ])(
    "%s is a 400 invalid_url",
    (raw) => {
      const error = thrown(() => parseUrlParam(raw));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: "invalid_url" });
    },
  );
});

describe("parseQuery(): the download parameters", () => {
  const url = "https://www.youtube.com/watch?v=abc";

  test("parses each one; an empty one counts as absent, a repeated one by its first value", () => {
    expect(parseQuery(DownloadQuery, query({ url, format: " 137+140 ", audio: "mp3", filename: "Mon fichier" })))
      .toMatchObject({
        format: "137+140",
        audio: "mp3",
        filename: "Mon fichier",
      });
    expect(parseQuery(DownloadQuery, query({ url, audio: "", format: "" }))).toEqual({ url: new URL(url) });
    expect(parseQuery(DownloadQuery, new URLSearchParams(`url=${url}&format=18&format=22`)).format).toBe("18");
  });

  test("takes a filename with line breaks and control characters as given, for sanitizing later", () => {
    expect(parseQuery(DownloadQuery, query({ url, filename: "Title\r\nline two\u0000" })).filename).toBe(
      "Title\r\nline two\u0000",
    );
  });

  test.each([
    ["format", "b\u0000"],
    ["format", "b\n"],
    ["format", "bestvideo\u00e9"],
    ["format", "b".repeat(201)],
    ["audio", "wav"],
    ["filename", "x".repeat(256)],
  ])("%s=%j is a 400 invalid_parameter naming it", (name, value) => {
    const error = thrown(() => parseQuery(DownloadQuery, query({ url, [name]: value })));
    expect(error).toMatchObject({ status: 400, code: "invalid_parameter" });
    expect((error as Error).message).toContain(`\`${name}\``);
  });

  test("index is digits only, counting from 1: what it refuses says what it must be, not that it is missing", () => {
    expect(parseQuery(DownloadQuery, query({ url, index: "7" })).index).toBe(7);
    expect(parseQuery(DownloadQuery, query({ url, index: "1000" })).index).toBe(1000);
    for (const index of ["abc", "0x1", "+1", "01", " 1", "1 ", "1\n", "1\u0000", "1.0", "1e2", "0", "-1"]) {
      const error = thrown(() => parseQuery(DownloadQuery, query({ url, index })));
      expect(error, JSON.stringify(index)).toMatchObject({ status: 400, code: "invalid_parameter" });
      expect((error as Error).message, JSON.stringify(index)).toMatch(
        /`index` must be a whole number from 1, in digits only/,
      );
    }
    expect((thrown(() => parseQuery(DownloadQuery, query({ url, index: "1001" }))) as Error).message).toBe(
      "`index` is at most 1000.",
    );
    expect((thrown(() => parseQuery(DownloadQuery, query({ url, index: "9".repeat(30) }))) as Error).message).toBe(
      "`index` is at most 1000.",
    );
  });

  test("the OpenAPI document shows each bound and pattern the parser checks", () => {
    const document = buildOpenApiDocument() as {
      paths: Record<string, { get: { parameters: { name: string; schema: Record<string, unknown> }[] } }>;
    };
    const schemas = Object.fromEntries(
      document.paths["/api/v1/download"]!.get.parameters.map((p) => [p.name, p.schema]),
    );
    expect(schemas.url).toMatchObject({ type: "string", maxLength: 4096, pattern: expect.any(String) });
    expect(schemas.format).toMatchObject({ type: "string", maxLength: 200, pattern: "^[\\x20-\\x7e]*$" });
    expect(schemas.filename).toMatchObject({ type: "string", maxLength: 255 });
    expect(schemas.audio).toMatchObject({ enum: ["mp3", "m4a"] });
    expect(schemas.mute).toMatchObject({ enum: ["true"] });
    expect(schemas.index).toMatchObject({ type: "integer", minimum: 1, maximum: 1000 });
    for (const [name, schema] of Object.entries(schemas)) {
      // `filename` takes control characters: the name is sanitized where it is used; `audio`, `mute` and `cut` are enums.
      if (!["audio", "mute", "cut", "index", "filename"].includes(name)) {
        expect(new RegExp(schema.pattern as string).test("a\u0000"), name).toBe(false);
      }
    }
  });
});

describe("parseQuery(): parameters the operation does not take", () => {
  const url = "https://www.youtube.com/watch?v=abc";

  test.each([
    ["fromat", "worst", "format"],
    ["audioformat", "mp3", "audio"],
    ["Format", "best", "format"],
    ["indx", "2", "index"],
    ["subtitle", "en", "subtitles"],
  ])("%s is a 400 unknown_parameter naming it and the nearest known one", (name, value, nearest) => {
    const error = thrown(() => parseQuery(DownloadQuery, query({ url, [name]: value }))) as ApiError;
    expect(error).toMatchObject({ status: 400, code: "unknown_parameter" });
    expect(error.message).toContain(`\`${name}\``);
    expect(error.message).toContain(`Did you mean \`${nearest}\`?`);
  });

  test("names no guess for a name close to none, lists what the operation takes, and refuses even an empty one", () => {
    const error = thrown(() => parseQuery(PostQuery, query({ url, callback: "" }))) as ApiError;
    expect(error).toMatchObject({ status: 400, code: "unknown_parameter" });
    expect(error.message).not.toContain("Did you mean");
    expect(error.message).toContain("It takes: `url`.");
  });
});
