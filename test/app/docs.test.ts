// The /docs page: rendered from the OpenAPI document, self-contained, under a CSP that allows
// nothing but its own stylesheet.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typeOf } from "../../src/app/docs.ts";
import { buildOpenApiDocument } from "../../src/app/openapi.ts";
import { buildTestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

describe("GET /docs", () => {
  let store: TestStore;
  let page: Response;
  let html: string;
  beforeAll(async () => {
    store = await openTestStore("pglite");
    page = await buildTestApp(store.db).get("/docs");
    html = await page.text();
  });
  afterAll(() => store?.close());

  it("is an HTML page served without a key", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(html).toMatch(/^<!doctype html>/);
  });

  it("sends a CSP that allows only its own stylesheet, by hash", () => {
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = createHash("sha256").update(style).digest("base64");
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("has no script and loads nothing from elsewhere", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/<link/i);
  });

  it("lists each operation with its parameters and statuses, and each schema's fields", () => {
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    for (const [path, item] of Object.entries(document.paths)) {
      // Every method's operation has its section; HEAD is named beside GET's.
      for (const [method, operation] of Object.entries(item)) {
        if (method !== "head") expect(html).toContain(`<section id="${operation.operationId}">`);
      }
      expect(html).toContain(`<code>${path}</code>`);
    }
    expect(html).toContain("<td><code>audio</code></td><td>one of <code>mp3</code>, <code>m4a</code></td><td>no</td>");
    expect(html).toMatch(
      /<td>413<\/td><td>The file is larger than this server relays\. Codes: <code>file_too_large<\/code>\.<\/td>/,
    );
    expect(html).toContain('<section id="schema-TweetRecord">');
    expect(html).toContain(
      '<td><code>videoVariants</code></td><td>array of <a href="#schema-TweetVideoVariant">TweetVideoVariant</a></td><td>yes</td>',
    );
    expect(html).toContain("<td><code>authorName</code></td><td>string | null</td><td>yes</td>");
  });

  it("shows every media item, index, subtitles and the size estimate", () => {
    expect(html).toContain(
      '<td><code>media</code></td><td>array of <a href="#schema-PostMediaItem">PostMediaItem</a></td><td>yes</td>',
    );
    expect(html).toContain(
      '<td><code>subtitles</code></td><td>array of <a href="#schema-PostSubtitle">PostSubtitle</a></td><td>yes</td>',
    );
    expect(html).toContain('<section id="schema-TweetMediaItem">');
    expect(html).toMatch(/<td><code>index<\/code><\/td><td>integer[^<]*<\/td><td>no<\/td>/);
    expect(html).toContain("<td><code>subtitles</code></td><td>string</td><td>no</td>");
    expect(html).toContain("Estimated-Content-Length");
  });
});

describe("typeOf", () => {
  it("reads JSON Schema types as short text", () => {
    expect(typeOf({ type: ["integer", "null"] })).toBe("integer | null");
    expect(typeOf({ anyOf: [{ type: "integer" }, { type: "null" }] })).toBe("integer | null");
    expect(typeOf({ type: "string", format: "uri" })).toBe("string (URL)");
    expect(typeOf({ type: "array", items: { type: "string" } })).toBe("array of string");
    expect(typeOf({ allOf: [{ $ref: "#/components/schemas/Problem" }, { type: "object" }] })).toBe(
      '<a href="#schema-Problem">Problem</a>',
    );
    expect(typeOf({ enum: ["<b>"] })).toBe("one of <code>&lt;b&gt;</code>");
  });
});
