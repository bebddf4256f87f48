import { describe, expect, test } from "vitest";
import { parseUrlParam } from "../../src/http/params.ts";
import { ApiError } from "../../src/http/problem.ts";

describe("parseUrlParam()", () => {
  test("returns the URL of an http(s) link", () => {
    expect(parseUrlParam(" https://youtu.be/abc?t=1 ").href).toBe("https://youtu.be/abc?t=1");
    expect(parseUrlParam("http://127.0.0.1:8080/a").port).toBe("8080");
  });

  test.each([null, undefined, "", "   ", "youtu.be/abc", "not a url", "ftp://example.com/a", "file:///etc/passwd", "javascript:alert(1)", `https://a.com/${"x".repeat(5000)}`])(
    "%s is a 400 invalid_url",
    (raw) => {
      const error = (() => {
        try {
          parseUrlParam(raw);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 400, code: "invalid_url" });
    },
  );
});
