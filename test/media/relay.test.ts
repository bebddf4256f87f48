import { createHash } from "node:crypto";
import { type Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nativeBodyOf } from "../../src/http/native-body.ts";
import { ApiError } from "../../src/http/problem.ts";
import { type RelayInput, relayMedia, type RelayOptions } from "../../src/media/relay.ts";
import { fetchUpstream, type UpstreamClient, type UpstreamRequest } from "../../src/net/relay-upstream.ts";
import { nodeUpstream } from "../../src/runtime/node/relay-upstream.ts";
import { type FakeCdn, fakeSha256, startFakeCdn } from "../fakes/cdn.ts";
import { scaled } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

const MiB = 1024 * 1024;

async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  const reader = body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) yield read.value;
}

async function sha256Of(body: ReadableStream<Uint8Array> | null): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of chunksOf(body)) hash.update(chunk);
  return hash.digest("hex");
}

async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  return Promise.race([promise, new Promise<"timed out">((resolve) => setTimeout(() => resolve("timed out"), ms))]);
}

describe.each(
  [
    ["nodeUpstream", nodeUpstream],
    ["fetchUpstream", fetchUpstream],
  ] as const,
)("relayMedia() with %s", (_name, upstream) => {
  let cdn: FakeCdn;
  let options: RelayOptions;

  beforeAll(async () => {
    cdn = await startFakeCdn();
    options = {
      upstream,
      originOverrides: new Map(["video.twimg.com", "pbs.twimg.com", "ton.twimg.com"].map((host) => [host, cdn.origin])),
      maxBytes: 2 * 1024 * MiB,
      firstByteTimeoutMs: 2000,
      resolveHost: async () => {
        throw new Error("overridden hosts are never resolved");
      },
    };
  });
  afterAll(() => cdn.close());

  const relay = (url: string, input: Partial<RelayInput> = {}, extra: Partial<RelayOptions> = {}) =>
    relayMedia(
      {
        url: new URL(url, "https://video.twimg.com"),
        method: "GET",
        range: null,
        signal: new AbortController().signal,
        ...input,
      },
      { ...options, ...extra },
    );
  const lastRequest = () => cdn.requests.at(-1)!;

  it("relays the bytes with the upstream headers and its own file name", async () => {
    const response = await relay("/file/300000/AbC_d.mp4?tag=12");
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toEqual({
      "content-type": "video/mp4",
      "content-length": "300000",
      "content-disposition": `attachment; filename="AbC_d.mp4"; filename*=UTF-8''AbC_d.mp4`,
      "accept-ranges": "bytes",
      etag: '"fake-300000"',
      "last-modified": "Wed, 01 May 2024 12:00:00 GMT",
    });
    expect(await sha256Of(response.body)).toBe(fakeSha256(0, 300000));
    expect(lastRequest().headers["accept-encoding"]).toBe("identity");
    expect(lastRequest().path).toBe("/file/300000/AbC_d.mp4?tag=12");
  });

  it("names a pbs image after its media id and the type that is sent", async () => {
    const response = await relay("https://pbs.twimg.com/file/1000/GMxYz1aW8AA?format=png&name=orig&type=image/jpeg");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="GMxYz1aW8AA.jpg"; filename*=UTF-8''GMxYz1aW8AA.jpg`,
    );
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    await response.body?.cancel();
  });

  it("sanitizes the caller's name and forces the sent extension", async () => {
    const response = await relay("/file/1000/a.mp4", { filename: "../Ünïcode clip.mov" });
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="_Unicode clip.mp4"; filename*=UTF-8''_%C3%9Cn%C3%AFcode%20clip.mp4`,
    );
    await response.body?.cancel();
  });

  it("takes the extension from the URL when the content type says nothing", async () => {
    const response = await relay("/file/1000/x.webm?type=application/octet-stream");
    expect(response.headers.get("content-disposition")).toContain(`filename="x.webm"`);
    await response.body?.cancel();
  });

  it("passes Range through and answers 206 with Content-Range", async () => {
    const response = await relay("/file/300000/a.mp4", { range: "bytes=1000-1999" });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe("bytes 1000-1999/300000");
    expect(response.headers.get("content-length")).toBe("1000");
    expect(await sha256Of(response.body)).toBe(fakeSha256(1000, 2000));
    expect(lastRequest().headers.range).toBe("bytes=1000-1999");
  });

  it("answers 416 with the file size for a range beyond the end", async () => {
    const error = await apiErrorOf(relay("/file/1000/a.mp4", { range: "bytes=5000-" }));
    expect(error).toMatchObject({
      status: 416,
      code: "range_not_satisfiable",
      headers: { "content-range": "bytes */1000" },
    });
  });

  it("tells onEnd of a served file once its body is over, and never of one it refuses (the caller may try a mirror under the same slot)", async () => {
    let ends = 0;
    const onEnd = () => void ends++;
    // With an idle cut each upstream body's end is watched (without one fetchUpstream leaves it to the runtime).
    const watched = { idleTimeoutMs: 10_000 };
    for (const refused of ["/status/503", "/status/404"]) await apiErrorOf(relay(refused, { onEnd }, watched));
    await apiErrorOf(relay("/file/1000/a.mp4", { range: "bytes=5000-", onEnd }, watched));
    const served = await relay("/file/1000/a.mp4", { onEnd }, watched);
    await served.arrayBuffer();
    // The refused bodies were over long before the served one: had they been told, the count would pass 1.
    await expect.poll(() => ends).toBe(1);
    expect(ends).toBe(1);
  });

  it("answers HEAD with the headers and no body", async () => {
    const response = await relay("/file/300000/a.mp4", { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
    expect(response.headers.get("content-length")).toBe("300000");
    expect(response.headers.get("content-disposition")).toContain(`filename="a.mp4"`);
    expect(lastRequest().method).toBe("HEAD");
  });

  describe("redirects", () => {
    it("follows up to five redirects within the allowed hosts", async () => {
      const before = cdn.requests.length;
      const response = await relay("/hops/5/file/5000/a.mp4");
      expect(response.status).toBe(200);
      expect(await sha256Of(response.body)).toBe(fakeSha256(0, 5000));
      expect(cdn.requests.length - before).toBe(6);
    });

    it("follows a relative Location", async () => {
      const response = await relay(`/redirect?to=${encodeURIComponent("/file/10/b.mp4")}`);
      expect(await sha256Of(response.body)).toBe(fakeSha256(0, 10));
      expect(lastRequest().path).toBe("/file/10/b.mp4");
    });

    it("names the file after the caller's URL, not the redirect target", async () => {
      const response = await relay(`/redirect?to=${encodeURIComponent("/file/10/target.mp4")}`);
      expect(response.headers.get("content-disposition")).toContain(`filename="redirect.mp4"`);
      await response.body?.cancel();
    });

    it("refuses more than five redirects with 502", async () => {
      const error = await apiErrorOf(relay("/hops/6/file/10/a.mp4"));
      expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
      expect(error.message).toContain("more than 5");
    });

    it("refuses a redirect loop with 502", async () => {
      const error = await apiErrorOf(relay("/loop"));
      expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
      expect(error.message).toContain("loop");
    });

    it.each([
      ["another host", "https://example.com/file/10"],
      ["plain http on an allowed host", "http://video.twimg.com/file/10"],
      ["the loopback address", "http://127.0.0.1/file/10"],
      ["the fake CDN itself by address", "FAKE/file/10"],
      ["a link-local address", "https://169.254.169.254/latest/meta-data"],
    ])("refuses a redirect to %s with 403", async (_why, target) => {
      const to = target.replace("FAKE", cdn.origin);
      const error = await apiErrorOf(relay(`/redirect?to=${encodeURIComponent(to)}`));
      expect(error).toMatchObject({ status: 403, code: "host_not_allowed" });
      expect(error.message).toContain("redirect target");
    });

    it("refuses an allowed host that resolves to a private address, also after a redirect", async () => {
      const resolved: string[] = [];
      const resolveHost = async (host: string) => {
        resolved.push(host);
        return ["93.184.216.34", "10.0.0.7"];
      };
      const overrides = new Map([["video.twimg.com", cdn.origin]]);
      const direct = await apiErrorOf(
        relay("https://pbs.twimg.com/media/X?format=jpg", {}, { resolveHost, originOverrides: overrides }),
      );
      expect(direct).toMatchObject({ status: 403, code: "host_not_allowed" });
      const redirected = await apiErrorOf(
        relay(`/redirect?to=${encodeURIComponent("https://ton.twimg.com/file/10")}`, {}, {
          resolveHost,
          originOverrides: overrides,
        }),
      );
      expect(redirected).toMatchObject({ status: 403, code: "host_not_allowed" });
      expect(resolved).toEqual(["pbs.twimg.com", "ton.twimg.com"]);
    });
  });

  describe("upstream failures", () => {
    it.each([
      [404, 404, "not_found"],
      [410, 404, "not_found"],
      [403, 502, "upstream_failed"],
      [500, 502, "upstream_failed"],
      [503, 502, "upstream_failed"],
      [418, 502, "upstream_failed"],
    ])("maps upstream %i to %i %s", async (upstreamStatus, status, code) => {
      const error = await apiErrorOf(relay(`/status/${upstreamStatus}`));
      expect(error).toMatchObject({ status, code });
    });

    it("answers 504 when no response head arrives in time, and hangs up", async () => {
      const started = Date.now();
      // A head that would come long after any bound a busy machine needs: the timeout, not the head, ends it.
      const error = await apiErrorOf(relay("/delay/60000/file/10/a.mp4", {}, { firstByteTimeoutMs: 150 }));
      expect(error).toMatchObject({ status: 504, code: "upstream_timeout" });
      expect(Date.now() - started).toBeLessThan(scaled(1500));
      expect(await within(lastRequest().outcome, scaled(2000))).toBe("closed");
    });

    it("answers 502 when the connection closes before the response head", async () => {
      const error = await apiErrorOf(relay("/hangup"));
      expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
    });

    it("errors the body stream when the connection resets mid-body", async () => {
      const response = await relay("/reset/100000/file/300000/a.mp4");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-length")).toBe("300000");
      let received = 0;
      const read = (async () => {
        for await (const chunk of chunksOf(response.body)) received += chunk.byteLength;
      })();
      await expect(read).rejects.toThrow();
      expect(received).toBeLessThan(300000);
    });

    it("errors the body and closes the upstream when the source sends nothing for the idle time", async () => {
      const before = cdn.requests.length;
      const response = await relay("/stall/65536/file/1048576/a.mp4", {}, { idleTimeoutMs: 300 });
      expect(response.status).toBe(200);
      let received = 0;
      const read = (async () => {
        for await (const chunk of chunksOf(response.body)) received += chunk.byteLength;
      })();
      await expect(within(read, scaled(5000))).rejects.toThrow();
      expect(received).toBe(65536);
      expect(await cdn.requests[before]!.outcome).toBe("closed");
    });

    it("leaves a quiet source alone when there is no idle time (DOWNLOAD_IDLE_TIMEOUT_S=0), until the client goes", async () => {
      const before = cdn.requests.length;
      const response = await relay("/stall/65536/file/1048576/a.mp4");
      const reader = response.body!.getReader();
      let received = 0;
      while (received < 65536) received += (await reader.read()).value!.byteLength;
      expect(await within(reader.read(), 700)).toBe("timed out");
      await reader.cancel();
      expect(await within(cdn.requests[before]!.outcome, scaled(2000))).toBe("closed");
    });
  });

  describe("client going away", () => {
    it("closes the upstream connection when the signal aborts mid-body", async () => {
      const client = new AbortController();
      const response = await relay("/file/1000000000/big.mp4", { signal: client.signal });
      const reader = response.body!.getReader();
      for (let i = 0; i < 3; i++) expect((await reader.read()).done).toBe(false);
      client.abort();
      expect(await within(lastRequest().outcome, scaled(2000))).toBe("closed");
    });

    it("closes the upstream connection when the body is cancelled", async () => {
      const response = await relay("/file/1000000000/big.mp4");
      const reader = response.body!.getReader();
      await reader.read();
      await reader.cancel();
      expect(await within(lastRequest().outcome, scaled(2000))).toBe("closed");
    });

    it("closes the upstream connection when the signal aborts before the response head", async () => {
      const client = new AbortController();
      const before = cdn.requests.length;
      const pending = relay("/delay/60000/file/10/a.mp4", { signal: client.signal });
      await until("the request at the CDN", () => cdn.requests.length > before);
      const abortedAt = Date.now();
      client.abort();
      await apiErrorOf(pending);
      expect(Date.now() - abortedAt).toBeLessThan(scaled(500));
      expect(await within(lastRequest().outcome, scaled(1000))).toBe("closed");
    });
  });

  describe("size cap", () => {
    it("refuses a known length over the cap before sending anything", async () => {
      const error = await apiErrorOf(relay("/file/2001/a.mp4", {}, { maxBytes: 2000 }));
      expect(error).toMatchObject({ status: 413, code: "file_too_large" });
      expect(error.message).toContain("2001");
    });

    it("counts the whole file, not the requested range", async () => {
      const error = await apiErrorOf(relay("/file/2001/a.mp4", { range: "bytes=0-9" }, { maxBytes: 2000 }));
      expect(error).toMatchObject({ status: 413, code: "file_too_large" });
    });

    it("relays a file of exactly the cap", async () => {
      const response = await relay("/file/2000/a.mp4", {}, { maxBytes: 2000 });
      expect(await sha256Of(response.body)).toBe(fakeSha256(0, 2000));
    });

    it("aborts an unknown length once it passes the cap, and hangs up upstream", async () => {
      const response = await relay("/file/1000000000/a.mp4?chunked=1", {}, { maxBytes: 100000 });
      expect(response.headers.get("content-length")).toBeNull();
      let received = 0;
      const read = (async () => {
        for await (const chunk of chunksOf(response.body)) received += chunk.byteLength;
      })();
      await expect(read).rejects.toMatchObject({ status: 413, code: "file_too_large" });
      expect(received).toBeLessThanOrEqual(100000);
      expect(await within(lastRequest().outcome, scaled(2000))).toBe("closed");
    });

    it("relays an unknown length under the cap in full", async () => {
      const response = await relay("/file/50000/a.mp4?chunked=1", {}, { maxBytes: 100000 });
      expect(await sha256Of(response.body)).toBe(fakeSha256(0, 50000));
    });
  });

  // Issue 43, item 4: a file of no bytes is no download, however the host declares it.
  describe("an empty file", () => {
    it.each(
      [
        ["declared as 0 bytes", "/file/0/a.mp4", "GET"],
        ["of undeclared length that ends with no byte", "/file/0/a.mp4?chunked=1", "GET"],
        ["asked for with HEAD", "/file/0/a.mp4", "HEAD"],
      ] as const,
    )("%s is 502 upstream_failed, never a 200", async (_what, path, method) => {
      const error = await apiErrorOf(relay(path, { method }));
      expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
      expect(error.message).toContain("empty file");
    });

    it("a 1-byte file of undeclared length is still relayed whole", async () => {
      const response = await relay("/file/1/a.mp4?chunked=1");
      expect(response.status).toBe(200);
      expect(await sha256Of(response.body)).toBe(fakeSha256(0, 1));
    });
  });

  it("refuses a URL outside the allowed hosts before any request", async () => {
    const before = cdn.requests.length;
    const error = await apiErrorOf(relay(`${cdn.origin}/file/10`));
    expect(error).toMatchObject({ status: 403, code: "host_not_allowed" });
    expect(cdn.requests.length).toBe(before);
  });

  it(
    upstream === nodeUpstream
      ? "exposes the raw Node body for a known length, and only the Web stream otherwise"
      : "exposes no Node body",
    async () => {
      const known = await relay("/file/300000/a.mp4");
      const chunked = await relay("/file/3000/a.mp4?chunked=1");
      expect(nativeBodyOf(chunked)).toBeUndefined();
      await chunked.body?.cancel();
      const nodeBody = nativeBodyOf(known) as Readable | undefined;
      if (upstream !== nodeUpstream) {
        expect(nodeBody).toBeUndefined();
        return void (await known.body?.cancel());
      }
      const hash = createHash("sha256");
      await pipeline(
        nodeBody!,
        new Writable({
          write: (chunk, _enc, done) => {
            hash.update(chunk);
            done();
          },
        }),
      );
      expect(hash.digest("hex")).toBe(fakeSha256(0, 300000));
    },
  );
});

describe("relayMedia() connection target", () => {
  it("pins the connection to the address it checked when no override applies", async () => {
    const seen: UpstreamRequest[] = [];
    const upstream: UpstreamClient = async (request) => {
      seen.push(request);
      return {
        status: 200,
        headers: new Headers({ "content-type": "video/mp4", "content-length": "10" }),
        body: null,
        ended: Promise.resolve(),
      };
    };
    const response = await relayMedia(
      {
        url: new URL("https://ton.twimg.com/i/a.mp4"),
        method: "HEAD",
        range: null,
        signal: new AbortController().signal,
      },
      {
        upstream,
        originOverrides: new Map(),
        maxBytes: 100,
        firstByteTimeoutMs: 1000,
        resolveHost: async () => ["93.184.216.34"],
      },
    );
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url.href).toBe("https://ton.twimg.com/i/a.mp4");
    expect(seen[0]!.address).toBe("93.184.216.34");
  });
});
