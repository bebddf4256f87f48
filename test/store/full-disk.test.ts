// The embedded store on a disk that fills up, a small tmpfs of its own (mounting needs root, which
// the test machine has; elsewhere the test is skipped, saying why), run as an operator runs it:
// writes are 503 store_unavailable, /readyz names the cause, and a start-up on the full disk says
// what is wrong.
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";

const mountPoint = mkdtempSync(path.join(tmpdir(), "full-disk-"));
/** A 64 MiB tmpfs: the store's template takes about 40. */
const mounted = (() => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64m,mode=0700", "tmpfs", mountPoint], { stdio: "pipe" });
    return true;
  } catch (error) {
    console.warn(`full-disk tests skipped: cannot mount a tmpfs (${(error as Error).message.split("\n")[0]})`);
    return false;
  }
})();

/** Writes zeros into `file` until the file system refuses another byte. */
function fillUp(file: string): void {
  const fd = openSync(file, "w");
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = new Uint8Array(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.runIf(mounted)("the built service with its embedded store on a disk that fills up", () => {
  const DATA_DIR = path.join(mountPoint, "data");
  let service: RunningService;

  beforeAll(async () => {
    service = await startService({ DATA_DIR });
    expect((await (await fetch(`${service.url}/readyz`)).json()).checks.store).toEqual({ ok: true });
    fillUp(path.join(mountPoint, "filler"));
  }, scaled(60_000));
  afterAll(async () => {
    await service?.stop();
    execFileSync("umount", ["-l", mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it("answers a sign-up 503 store_unavailable with Retry-After, not a 500", async () => {
    const page = await fetch(`${service.url}/sign-up`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const signUp = await fetch(`${service.url}/sign-up`, {
      method: "POST",
      headers: {
        cookie: page.headers.getSetCookie()[0]!.split(";")[0]!,
        "sec-fetch-site": "same-origin",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        csrf,
        email: "full@example.com",
        password: "a long enough password",
        repeat: "a long enough password",
      }),
      redirect: "manual",
    });
    expect(signUp.status).toBe(503);
    expect(signUp.headers.get("retry-after")).toBe("60");
    // The owner's pages answer in HTML, as a browser's form wants (the error sink's page).
    expect(signUp.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await signUp.text()).toContain("cannot write");
    expect(service.output.join("\n")).not.toContain("unhandled error");
  });

  it("is not ready, and /readyz names DATA_DIR", async () => {
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks.store).toMatchObject({
      ok: false,
      error: expect.stringContaining(`no space left in DATA_DIR (${DATA_DIR})`),
    });
  });

  it("names the full disk at start-up: as the reason it cannot start, or as an error when it can", async () => {
    // Killed on the full disk, its lock stays, and a new start overwrites it in place: the store
    // opens, but cannot write.
    service.child.kill("SIGKILL");
    await service.stop();
    service = await startService({ DATA_DIR });
    const notReady = service.output.map((line) => JSON.parse(line)).find((entry) =>
      entry.msg === "the store is not ready"
    );
    expect(notReady).toMatchObject({
      level: "error",
      reason: expect.stringContaining(`no space left in DATA_DIR (${DATA_DIR})`),
    });
    // With no lock left to overwrite, a new one cannot be written: "ENOSPC ... write" alone before.
    await service.stop();
    rmSync(path.join(DATA_DIR, "store.lock"), { force: true });
    fillUp(path.join(mountPoint, "filler-2"));
    const outcome = await startService({ DATA_DIR }).then(
      async (started) => `started (${await started.stop()})`,
      (error: Error) => error.message,
    );
    expect(outcome).toContain(`The embedded store cannot start: no space left in DATA_DIR (${DATA_DIR})`);
  }, scaled(60_000));
});
