// Issue 43, item 4: gallery-dl prints `[]` and exits 0 after a warning it went on from (a login
// redirect, a site it could not reach). Such a post is never 200 with `id: ""` and no media: the
// warning says which answer it is. gallery-dl is played by a stand-in extractor that prints what
// gallery-dl 1.32 prints in these cases (its warnings in its own log format).
import { describe, expect, test } from "vitest";
import { galleryReader } from "../../../../src/platforms/tools/gallerydl/reader.ts";
import { createGalleryClient } from "../../../../src/platforms/tools/gallerydl/client.ts";
import type { PlatformId } from "../../../../src/platforms/records.ts";
import type { ExtractionOutput } from "../../../../src/processes/extractor.ts";
import { nodeFiles } from "../../../../src/runtime/node/files.ts";

/** A gallery-dl that prints `stdout` and logs `stderr`, exiting 0, and counts its runs. */
function standIn(stdout: string, stderr: string) {
  let runs = 0;
  const source = createGalleryClient({
    extractor: {
      run: async (job): Promise<ExtractionOutput> => {
        runs += 1;
        // The record holds at most maxItems files: gallery-dl is told so.
        expect(job.args.join(" ")).toContain("--range 1-20 --post-range 1-20");
        return { exitCode: 0, stdout, stderr };
      },
    },
    maxItems: 20,
    files: nodeFiles,
    timeoutMs: 10_000,
    socketTimeoutSec: 5,
    cacheTtlMs: 60_000,
    cacheMaxEntries: 10,
  });
  return { reader: galleryReader(source), runs: () => runs };
}

const links: [PlatformId, string][] = [
  ["INSTAGRAM", "https://www.instagram.com/p/C9kQ2mXoR3a/"],
  ["TIKTOK", "https://www.tiktok.com/@coast/photo/7412345678901234567"],
  ["REDDIT", "https://www.reddit.com/gallery/1fq2abc"],
  ["NEWGROUNDS", "https://www.newgrounds.com/art/view/someone/a-picture"],
];

const loginWall = "[instagram][warning] HTTP redirect to login page (https://www.instagram.com/accounts/login/)";
const unreachable =
  "[common][warning] ProxyError: HTTPSConnectionPool(host='127.0.0.1', port=41234): Unable to connect to proxy\n[urllib3.connectionpool][warning] Retrying (Retry(total=0, connect=None, read=None, redirect=0, status=None)) after connection broken by 'NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a>: Failed to establish a new connection: [Errno 111] Connection refused')': http://gate:s3cret@127.0.0.1:41234/p/";

describe.each(links)("%s: gallery-dl's [] after a warning", (platform, link) => {
  const ask = (stdout: string, stderr: string) => {
    const { reader, runs } = standIn(stdout, stderr);
    return { answer: reader.describe({ url: new URL(link), platform }), runs };
  };

  test("a login redirect is 502 upstream_blocked", async () => {
    await expect(ask("[]", loginWall).answer).rejects.toMatchObject({ status: 502, code: "upstream_blocked" });
  });

  test("a site out of reach is 502 upstream_failed with gallery-dl's words, never a link", async () => {
    const error = await ask("[]", unreachable).answer.catch((thrown: Error) => thrown);
    expect(error).toMatchObject({ status: 502, code: "upstream_failed" });
    expect((error as Error).message).toContain("Unable to connect to proxy");
    expect((error as Error).message).not.toMatch(/s3cret|127\.0\.0\.1/);
  });

  test("no warning at all is 404 no_media, and is asked anew next time (not kept)", async () => {
    const { reader, runs } = standIn("[]", "");
    const describe = () => reader.describe({ url: new URL(link), platform });
    await expect(describe()).rejects.toMatchObject({ status: 404, code: "no_media" });
    await expect(describe()).rejects.toMatchObject({ status: 404, code: "no_media" });
    expect(runs()).toBe(2);
  });

  test("a post with text and no file is still a post: 200 with its text", async () => {
    const { answer } = ask(JSON.stringify([[2, { description: "Words only", id: "1" }]]), "");
    await expect(answer).resolves.toMatchObject({ text: "Words only", media: [] });
  });
});
