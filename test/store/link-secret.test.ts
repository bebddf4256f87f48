// Issue 43 item 1: every store makes its own link secret at its first start. The template a new
// embedded store is copied from (dist/pglite-template, made by the global setup's build) holds
// none, and a store upgraded from a build whose template held one replaces it at its first start,
// saying so, so that a link forged with the build's secret is refused.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { signLink } from "../../src/auth/signed-link.ts";
import type { Db } from "../../src/store/db.ts";
import { readLinkSecret, startLinkSecret } from "../../src/store/link-secret.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openStore } from "../../src/store/open.ts";
import { makeKey } from "../helpers/app.ts";
import { startService } from "../helpers/service.ts";
import { openTestStore, storeKinds } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";

const template = path.resolve("dist/pglite-template");
/** What migration 007 inserted before version 8, run once per build into the template. */
const buildTimeSecret = "replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')";

/** Takes `db` back to a store of a build before version 8: at migration 7, holding the secret 007 made. */
async function asBeforeVersion8(db: Db): Promise<string> {
  await db.exec(`DELETE FROM schema_migrations WHERE version = 8;
    ALTER TABLE link_secret DROP COLUMN store_made;
    DELETE FROM link_secret;
    INSERT INTO link_secret (secret) VALUES (${buildTimeSecret});`);
  return (await db.query<{ secret: string }>("SELECT secret FROM link_secret"))[0]!.secret;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(folder, name))
    .filter((file) => statSync(file).isFile());
}

describe("the link secret of embedded stores of one build", () => {
  const made: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "link-secret-"));
    made.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  test("two fresh stores copied from the template make different secrets, and dist/ holds neither", {
    timeout: scaled(120_000),
  }, async () => {
    const secrets: string[] = [];
    for (const _ of [1, 2]) {
      const db = await openStore({ DATA_DIR: dataDir() }, { template });
      // As copied, migrated to the last version: no secret came with the template.
      expect(await db.query("SELECT secret FROM link_secret")).toEqual([]);
      expect(await startLinkSecret(db, new Date())).toBe("made");
      expect(await startLinkSecret(db, new Date())).toBe("kept");
      secrets.push(await readLinkSecret(db));
      await db.close();
    }
    expect(secrets[0]).not.toBe(secrets[1]);
    const dist = filesUnder("dist");
    expect(dist.some((file) => file.startsWith(path.join("dist", "pglite-template")))).toBe(true);
    for (const file of dist) {
      const bytes = readFileSync(file);
      for (const secret of secrets) expect(bytes.includes(secret), file).toBe(false);
    }
    // Nor a secret as migration 007 made them before version 8 (64 hex digits), in any file of the template.
    for (const file of filesUnder(template)) {
      expect(/[0-9a-f]{64}/.test(readFileSync(file, "latin1")), file).toBe(false);
    }
  });

  test("an upgraded store replaces its build's secret at its first start, says so, and refuses a link forged with it", {
    timeout: scaled(120_000),
  }, async () => {
    const DATA_DIR = dataDir();
    const db = await openStore({ DATA_DIR }, { template });
    const buildSecret = await asBeforeVersion8(db);
    const key = await makeKey(db, "GOLD", { now: new Date() });
    await db.close();

    const service = await startService({ DATA_DIR, LOG_LEVEL: "info" });
    try {
      expect(service.output.join("\n")).toContain("the link secret was the one this store's build was made with");
      const forged = await signLink(buildSecret, "/api/v1/usage", {}, {
        base: service.url,
        keyId: key.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      const refused = await fetch(forged);
      expect(refused.status).toBe(403);
      expect((await refused.json()).code).toBe("link_invalid");
      // The key itself still works.
      const usage = await fetch(`${service.url}/api/v1/usage`, { headers: { authorization: `Bearer ${key.plain}` } });
      expect(usage.status).toBe(200);
    } finally {
      await service.stop();
    }
    expect(service.output.join("\n")).not.toContain("made this store's link secret");
  });
});

describe.each(storeKinds)("an upgraded %s store", (kind) => {
  test("replaces the secret migration 007 made once, then keeps its own", async () => {
    const store = await openTestStore(kind);
    try {
      const buildSecret = await asBeforeVersion8(store.db);
      expect(await migrate(store.db)).toEqual([8]);
      expect(await startLinkSecret(store.db, new Date())).toBe("replaced");
      const own = await readLinkSecret(store.db);
      expect(own).not.toBe(buildSecret);
      expect(await startLinkSecret(store.db, new Date())).toBe("kept");
      expect(await readLinkSecret(store.db)).toBe(own);
    } finally {
      await store.close();
    }
  });
});
