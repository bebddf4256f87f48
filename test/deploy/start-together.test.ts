// Instances that start at the same moment on one empty PostgreSQL database (systemd's
// `enable --now media-api@1 media-api@2 ...`) take turns at the schema, theirs and the queue's,
// and every one of them becomes ready; none dies on a schema another made a moment before.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { nodeCommand, type RunningService, startService } from "../helpers/service.ts";
import { createTestDatabase } from "../helpers/stores.ts";
import { scaled } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

describe("instances that start together", () => {
  let database: { url: string; drop(): Promise<void> };
  const services: RunningService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await database?.drop();
  });

  test("four started at once on an empty database all become ready", { timeout: scaled(240_000) }, async () => {
    const env = { DATABASE_URL: database.url, X_GRAPHQL_URL: "off" };
    // Four starts share two cores: each may take four times as long as one alone.
    const started = await Promise.allSettled(
      [1, 2, 3, 4].map(() => startService(env, nodeCommand, undefined, scaled(120_000))),
    );
    for (const each of started) if (each.status === "fulfilled") services.push(each.value);
    expect(started.map((each) => each.status === "rejected" ? String(each.reason).slice(0, 400) : "started"))
      .toEqual(["started", "started", "started", "started"]);
    for (const service of services) {
      await until(`${service.url}/readyz to answer 200`, async () => (await fetch(`${service.url}/readyz`)).ok, 60_000);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    }
  });
});
