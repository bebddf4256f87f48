// The OpenAPI document: valid OpenAPI 3.1 by a real validator, complete, and true of what the app
// really answers (status documented, headers present, body valid against the documented schema).
import { readdirSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorTable } from "../../src/http/errors.ts";
import { buildOpenApiDocument } from "../../src/app/openapi.ts";
import { apiRoutes } from "../../src/app/routes.ts";
import { LinkedTweetRecord } from "../../src/platforms/records.ts";
import { platformList } from "../../src/platforms/list.ts";
import { UsageRecord } from "../../src/limits/usage.ts";
import { type FakeCdn, startFakeCdn } from "../fakes/cdn.ts";
import { fakeTweetIds, type FakeXUpstream, fixturesDir, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { buildTestApp, makeKey, type TestApp } from "../helpers/app.ts";
import { openTestStore, type TestStore } from "../helpers/stores.ts";

type Json = Record<string, any>;
const DOC_ID = "https://media-api.test/openapi.json";

/** JSON pointer to a response's schema in the document, for ajv to resolve against DOC_ID. */
const pointer = (...parts: string[]) =>
  `${DOC_ID}#/${parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

describe("the OpenAPI document", () => {
  const document = buildOpenApiDocument() as Json;

  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("holds JSON Schemas that compile under draft 2020-12 with every $ref resolved", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(document, DOC_ID);
    for (const name of Object.keys(document.components.schemas)) {
      expect(ajv.getSchema(pointer("components", "schemas", name)), name).toBeTypeOf("function");
    }
  });

  it("describes every operation with bearer auth, the probes, metrics, platform status and pages without, each with HEAD beside GET", () => {
    // The API's paths are its route declarations' (test/app/routes.test.ts); the site's are these.
    const declared = new Set(apiRoutes.map((route) => route.path));
    expect(Object.keys(document.paths).filter((path) => !declared.has(path)).sort()).toEqual([
      "/api/v1/openapi.json",
      "/docs",
      "/healthz",
      "/metrics",
      "/platformz",
      "/readyz",
    ]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    for (const path of ["/api/v1/openapi.json", "/healthz", "/readyz", "/docs"]) {
      expect(document.paths[path].get.security, path).toEqual([]);
    }
    expect(document.paths["/metrics"].get.security).toEqual([{}, { metricsToken: [] }]);
    // Each path takes its declared methods, and HEAD wherever GET is.
    const methods: Record<string, string[]> = {};
    for (const { path, method } of apiRoutes) {
      methods[path] = [...(methods[path] ?? []), ...(method === "GET" ? ["get", "head"] : [method.toLowerCase()])]
        .sort();
    }
    for (const [path, item] of Object.entries(document.paths) as [string, Json][]) {
      expect(Object.keys(item).sort(), path).toEqual(methods[path] ?? ["get", "head"]);
      if (!item.get) continue;
      expect(Object.keys(item.head.responses), path).toEqual(Object.keys(item.get.responses));
      for (const answer of Object.values(item.head.responses) as Json[]) expect(answer.content, path).toBeUndefined();
    }
    expect(document.paths["/api/v1/usage"].head.operationId).toBe("headGetUsage");
    expect(document.paths["/api/v1/openapi.json"].get.responses[200].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/OpenApiDocument",
    });
  });

  it("names every platform of the table in post's url parameter", () => {
    const paths = document.paths as Record<
      string,
      Record<string, { parameters: { name: string; description: string }[] }>
    >;
    const url = paths["/api/v1/post"]!.get!.parameters.find((parameter) => parameter.name === "url")!;
    for (const row of platformList) expect(url.description).toContain(row.name);
    expect(url.description).toContain("Threads");
  });

  it("keeps records open to fields a later version adds", () => {
    expect(JSON.stringify(document.components.schemas)).not.toContain('"additionalProperties":false');
  });

  it("declares the download body binary per content type, never JSON", () => {
    const content = document.paths["/api/v1/download"].get.responses[200].content as Json;
    expect(Object.keys(content)).toEqual(
      expect.arrayContaining(["video/mp4", "audio/mpeg", "image/*", "application/octet-stream"]),
    );
    for (const [mediaType, { schema }] of Object.entries(content) as [string, Json][]) {
      expect(schema).toEqual({ type: "string", contentMediaType: mediaType });
    }
  });

  it("describes each operation's parameters", () => {
    const noControlCharacters = "^[^\\u0000-\\u001f\\u007f]*$";
    const urlSchema = { type: "string", format: "uri", maxLength: 4096, pattern: noControlCharacters };
    const clipTimeSchema = {
      type: "string",
      maxLength: 20,
      pattern: "^(?:\\d{1,6}(?:\\.\\d{1,3})?|(?:\\d{1,3}:)?[0-5]?\\d:[0-5]\\d(?:\\.\\d{1,3})?)$",
    };
    const parameters = (path: string) =>
      Object.fromEntries(
        (document.paths[path].get.parameters as Json[]).map((
          p,
        ) => [p.name, { in: p.in, required: p.required, schema: p.schema }]),
      );
    for (const path of ["/api/v1/post", "/api/v1/tweet"]) {
      expect(parameters(path)).toEqual({ url: { in: "query", required: true, schema: urlSchema } });
    }
    expect(parameters("/api/v1/download")).toEqual({
      url: { in: "query", required: true, schema: urlSchema },
      format: { in: "query", required: false, schema: { type: "string", maxLength: 200, pattern: "^[\\x20-\\x7e]*$" } },
      audio: { in: "query", required: false, schema: { type: "string", enum: ["mp3", "m4a"] } },
      index: { in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 1000 } },
      subtitles: {
        in: "query",
        required: false,
        schema: { type: "string", minLength: 1, maxLength: 35, pattern: "^[A-Za-z0-9_-]*$" },
      },
      start: { in: "query", required: false, schema: clipTimeSchema },
      end: { in: "query", required: false, schema: clipTimeSchema },
      cut: { in: "query", required: false, schema: { type: "string", enum: ["keyframe", "exact"] } },
      mute: { in: "query", required: false, schema: { type: "string", enum: ["true"] } },
      filename: { in: "query", required: false, schema: { type: "string", maxLength: 255 } },
    });
    expect(document.paths["/api/v1/usage"].get.parameters).toEqual([]);
  });

  it("makes every record field required and says which may be null", () => {
    const tweet = document.components.schemas.TweetRecord;
    expect(tweet.required.sort()).toEqual(Object.keys(LinkedTweetRecord.shape).sort());
    expect(tweet.properties.downloadUrl.type).toBe("string");
    expect(tweet.properties.authorName.type).toEqual(["string", "null"]);
    expect(tweet.properties.text.type).toBe("string");
    expect(tweet.properties.durationSec.anyOf).toContainEqual({ type: "null" });
    expect(tweet.properties.videoVariants).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/TweetVideoVariant" },
    });
    const post = document.components.schemas.PostRecord;
    // The table's ids, or (SUPPORTED_SITES=all) an extractor's name in upper case.
    expect(post.properties.platform.anyOf[0].enum).toContain("YOUTUBE");
    expect(post.properties.platform.anyOf[1]).toMatchObject({ type: "string", pattern: "^[A-Z0-9_]+$" });
    expect(post.properties.posterUrl.type).toEqual(["string", "null"]);
    expect(post.properties.needsServerProcessing.type).toBe("boolean");
    expect(post.properties.media.items).toEqual({ $ref: "#/components/schemas/PostMediaItem" });
    expect(post.properties.subtitles.items).toEqual({ $ref: "#/components/schemas/PostSubtitle" });
    expect(tweet.properties.media.items).toEqual({ $ref: "#/components/schemas/TweetMediaItem" });
    const item = document.components.schemas.TweetMediaItem;
    expect(item.properties.type.enum).toEqual(["photo", "video", "gif"]);
    expect(item.properties.url.type).toEqual(["string", "null"]);
    expect(item.properties.videoVariants.items).toEqual({ $ref: "#/components/schemas/TweetVideoVariant" });
    expect(document.components.schemas.PostMediaItem.properties.videoVariants.items).toEqual({
      $ref: "#/components/schemas/PostVideoVariant",
    });
    expect(document.paths["/api/v1/download"].get.responses[200].headers["Estimated-Content-Length"]).toMatchObject({
      schema: { type: "integer" },
    });
  });

  it("gives every operation its error statuses as problem+json with codes from the error table, and rate-limit headers wherever they are sent", () => {
    const expected: Record<string, number[]> = {
      "/api/v1/post": [400, 401, 403, 404, 405, 429, 431, 500, 502, 503, 504],
      "/api/v1/tweet": [400, 401, 403, 404, 405, 429, 431, 500, 502, 503],
      "/api/v1/download": [400, 401, 403, 404, 405, 413, 416, 429, 431, 500, 502, 503, 504],
      "/api/v1/usage": [400, 401, 403, 405, 429, 431, 500, 503],
    };
    for (const [path, statuses] of Object.entries(expected)) {
      const responses = document.paths[path].get.responses as Json;
      const errors = Object.keys(responses).map(Number).filter((status) => status >= 400);
      expect(errors, path).toEqual(statuses);
      for (const status of errors) {
        const schema = responses[status].content["application/problem+json"].schema;
        expect(schema.allOf[0]).toEqual({ $ref: "#/components/schemas/Problem" });
        const codes = schema.allOf[1].properties.code.enum as (keyof typeof errorTable)[];
        for (const code of codes) expect(errorTable[code].status, `${path} ${code}`).toBe(status);
        if (status === 429) expect(responses[status].headers["Retry-After"].required).toBe(true);
        if (status === 401) expect(responses[status].headers["WWW-Authenticate"]).toBeDefined();
        const rateLimited = responses[status].headers["X-RateLimit-Remaining"];
        // Answered only before the key is admitted: no rate-limit headers; only after: always.
        if ([401, 431].includes(status)) expect(rateLimited, `${path} ${status}`).toBeUndefined();
        // The router's 405 carries them when the request's key is known.
        if (status === 405) expect(rateLimited.required, `${path} ${status}`).toBe(false);
        if ([404, 429, 502, 504].includes(status)) expect(rateLimited.required, `${path} ${status}`).toBe(true);
        // A signed link refused (403 link_invalid) is refused before a key is admitted; a passive key's 403 carries them.
        if (status === 403) expect(rateLimited.required, `${path} ${status}`).toBe(false);
      }
      expect(responses[400].content["application/problem+json"].schema.allOf[1].properties.code.enum).toEqual(
        expect.arrayContaining(["invalid_request", "unknown_parameter"]),
      );
      const ok = responses[200];
      for (
        const header of [
          "X-RateLimit-Limit",
          "X-RateLimit-Remaining",
          "X-RateLimit-Tier",
          "RateLimit-Policy",
          "RateLimit",
          "X-Request-Id",
        ]
      ) {
        expect(ok.headers[header].required, `${path} ${header}`).toBe(true);
      }
    }
    expect(
      document.paths["/api/v1/download"].get.responses[429].content["application/problem+json"].schema.allOf[1]
        .properties.code.enum,
    ).toEqual([
      "quota_exceeded",
      "burst_exceeded",
      "too_many_downloads",
      "too_many_extractions",
    ]);
  });
});

describe("responses of the running app", () => {
  const document = buildOpenApiDocument() as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(document, DOC_ID);
  let store: TestStore;
  let x: FakeXUpstream;
  let cdn: FakeCdn;
  let test: TestApp;
  let key: string;

  beforeAll(async () => {
    [store, x, cdn] = await Promise.all([openTestStore("pglite"), startFakeXUpstream(), startFakeCdn()]);
    test = buildTestApp(store.db, {
      env: { X_SYNDICATION_URL: x.syndicationUrl, ORIGIN_OVERRIDES: `video.twimg.com=${cdn.origin}` },
    });
    key = (await makeKey(store.db, "GOLD")).plain;
  });
  afterAll(async () => {
    await Promise.all([store?.close(), x?.close(), cdn?.close()]);
  });

  /** Checks one real response against the document and returns its parsed JSON body (if any). */
  async function conforms(path: string, response: Response): Promise<unknown> {
    const documented = document.paths[path].get.responses[response.status];
    expect(documented, `${path} answered ${response.status}, which the document does not list`).toBeDefined();
    for (const [name, header] of Object.entries(documented.headers ?? {}) as [string, Json][]) {
      if (header.required) expect(response.headers.get(name), `${path} ${response.status} ${name}`).not.toBeNull();
    }
    const [mediaType] = Object.keys(documented.content);
    if (!mediaType!.includes("json")) return undefined;
    expect(response.headers.get("content-type")).toMatch(new RegExp(`^${mediaType!.replace("+", "\\+")}`));
    const body = await response.json();
    const validate = ajv.getSchema(
      pointer("paths", path, "get", "responses", String(response.status), "content", mediaType!, "schema"),
    )!;
    expect(validate(body) ? [] : validate.errors).toEqual([]);
    if (response.status >= 400) {
      expect(documented.content[mediaType!].schema.allOf[1].properties.code.enum).toContain(body.code);
    }
    return body;
  }

  const tweetUrl = (id: string) => `/api/v1/tweet?url=${encodeURIComponent(`https://x.com/someone/status/${id}`)}`;

  it("tweet: records of video, photo and GIF posts match the TweetRecord schema", async () => {
    const ids = ["1491475671058681863", fakeTweetIds.mixedMedia, ...recordedTweetIds()];
    for (const id of ids) {
      const response = await test.get(tweetUrl(id), key);
      expect(response.status, id).toBe(200);
      const body = await conforms("/api/v1/tweet", response);
      expect(() => LinkedTweetRecord.strict().parse(body)).not.toThrow();
    }
  });

  it("tweet: 404, 400 and 502 are documented problems", async () => {
    await conforms("/api/v1/tweet", await test.get(tweetUrl(fakeTweetIds.unknown), key));
    await conforms("/api/v1/tweet", await test.get("/api/v1/tweet?url=nope", key));
    await conforms("/api/v1/tweet", await test.get("/api/v1/tweet?url=https%3A%2F%2Fexample.com%2Fa", key));
    x.setMode("syndication", { kind: "status", status: 500 });
    try {
      const failed = await test.get(tweetUrl("1491475671058681864"), key);
      expect(failed.status).toBe(502);
      await conforms("/api/v1/tweet", failed);
    } finally {
      x.setMode("syndication", { kind: "normal" });
    }
  });

  it("download: a whole file, a range, a refused host, a missing file", async () => {
    const media = (path: string) => `/api/v1/download?url=${encodeURIComponent(`https://video.twimg.com${path}`)}`;
    const whole = await test.get(media("/file/5000/clip.mp4"), key);
    expect(whole.status).toBe(200);
    await conforms("/api/v1/download", whole);
    expect((await whole.arrayBuffer()).byteLength).toBe(5000);
    const part = await test.get(media("/file/5000/clip.mp4"), key, { headers: { range: "bytes=10-19" } });
    expect(part.status).toBe(206);
    await conforms("/api/v1/download", part);
    await part.arrayBuffer();
    await conforms(
      "/api/v1/download",
      await test.get(`/api/v1/download?url=${encodeURIComponent("https://example.com/a.mp4")}`, key),
    );
    await conforms("/api/v1/download", await test.get(media("/status/404"), key));
  });

  it("usage, and the gate's 401, 403 and 429", async () => {
    const usage = await conforms("/api/v1/usage", await test.get("/api/v1/usage", key));
    expect(() => UsageRecord.parse(usage)).not.toThrow();
    await conforms("/api/v1/usage", await test.get("/api/v1/usage"));
    await conforms("/api/v1/usage", await test.get("/api/v1/usage", `xva_${"A".repeat(43)}`));
    const free = await makeKey(store.db, "FREE");
    for (let i = 0; i < 10; i++) await test.get("/api/v1/usage", free.plain);
    const refused = await test.get("/api/v1/usage", free.plain);
    expect(refused.status).toBe(429);
    await conforms("/api/v1/usage", refused);
  });

  it("serves itself at /api/v1/openapi.json without a key", async () => {
    const response = await test.get("/api/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toEqual(document);
  });
});

/** Ids of the recorded syndication answers the fake X serves (photos, GIFs, videos). */
function recordedTweetIds(): string[] {
  return readdirSync(path.join(fixturesDir, "syndication"))
    .map((file) => /_(\d+)(?:_\w+)?\.json$/.exec(file)?.[1])
    .filter((id): id is string => id !== undefined);
}
