// The built service runs as a user who did not build it, as systemd's `media-api` user and the
// image's `node` user do: the build (as root here) must leave nothing they need to read private.
import { execFileSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.ts";
import { readableCopy, serviceUser } from "../helpers/service-user.ts";

const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)("the built service as an unprivileged user", () => {
  const folders: string[] = [];
  let service: RunningService | undefined;
  let copy: ReturnType<typeof readableCopy> | undefined;
  afterAll(async () => {
    await service?.stop();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    copy?.remove();
  });

  it("starts with a fresh DATA_DIR from the template the build made, and answers /healthz", async () => {
    const user = serviceUser();
    expect(statSync("dist/pglite-template").mode & 0o777).toBe(0o755);
    const dataDir = mkdtempSync(join(tmpdir(), "media-api-user-"));
    folders.push(dataDir);
    chownSync(dataDir, user.uid, user.gid);
    // The user runs its own copy: the clone may sit in a folder it may not enter.
    copy = readableCopy();
    service = await startService(
      { DATA_DIR: join(dataDir, "data"), EXTRACTION_HOST: "off", HOME: dataDir, XDG_CACHE_HOME: dataDir },
      user.command([process.execPath, "dist/node.mjs"]),
      copy.root,
    );
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // The store is the user's own, and private.
    const store = statSync(join(dataDir, "data", "pglite"));
    expect([store.uid, store.mode & 0o777]).toEqual([user.uid, 0o700]);
    const owner = execFileSync("ps", ["-o", "user=", "-p", String(service.child.pid)], { encoding: "utf8" }).trim();
    expect(owner).toBe(user.name);
  });
});
