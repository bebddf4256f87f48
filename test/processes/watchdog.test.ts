// Issue 28: no media tool outlives the service, at any moment. The service is stopped with SIGTERM
// (which, with no grace period, cuts the download at once and tells its tool's group to stop)
// and killed with SIGKILL 0.3 s later, before its own SIGKILL for the tool would follow; the tool
// ignores SIGTERM, as ffmpeg does while it sleeps between reconnects. A few seconds later no tool
// may be left.
import { once } from "node:events";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { runningTools, toolsLeft } from "../helpers/media.ts";
import { runAdmin, startService } from "../helpers/service.ts";

let site: MediaSite;
let dir: string;

beforeAll(async () => {
  site = await startMediaSite();
  dir = mkdtempSync(join(tmpdir(), "watchdog-"));
});
afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An ffmpeg that ignores SIGTERM and lingers after its work; `-version` (the service's probe) answers at once. */
function stubbornFfmpeg(): string {
  const path = join(dir, "ffmpeg");
  writeFileSync(
    path,
    `#!/bin/sh\n[ "$1" = -version ] && exec ffmpeg -version\ntrap '' TERM\nffmpeg "$@"\nwhile :; do sleep 1; done\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

test("a tool that ignores SIGTERM is gone within 3 s of a service killed 0.3 s after its SIGTERM", async () => {
  const dataDir = join(dir, "data");
  const service = await startService({
    DATA_DIR: dataDir,
    EXTRA_PAGE_HOSTS: site.host,
    FFMPEG_PATH: stubbornFfmpeg(),
    SHUTDOWN_GRACE_MS: "0",
    TMPDIR: dir,
  });
  try {
    await runAdmin(
      ["users", "create", "--email", "watchdog@example.com"],
      { DATA_DIR: dataDir },
      "watchdog password\n",
    );
    const key =
      (await runAdmin(["keys", "create", "--email", "watchdog@example.com", "--tier", "GOLD"], { DATA_DIR: dataDir }))
        .stdout.trim();
    const controller = new AbortController();
    const response = await fetch(`${service.url}/api/v1/download?url=${encodeURIComponent(site.pages.stalledMedia)}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    await response.body!.getReader().read();
    expect(runningTools(site.host).some((line) => line.includes(join(dir, "ffmpeg")))).toBe(true);

    const exited = once(service.child, "exit");
    service.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    service.child.kill("SIGKILL");
    await exited;
    controller.abort();
    // Within 3 s: the test ends as soon as the tools are gone, and fails if one outlives the bound.
    expect(await toolsLeft(site.host, 3000)).toEqual([]);
  } finally {
    await service.stop();
  }
});
