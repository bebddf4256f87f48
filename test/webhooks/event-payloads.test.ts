// The events' payloads as a client's author meets them: the OpenAPI document's `webhooks` describes
// every event, openapi-typescript makes their types, and a real `job.completed` delivery (verified
// with the standardwebhooks package) is what the schema says, its signed `archiveUrl` fetching the
// job's ZIP without the key.
import openapiTS, { astToString } from "openapi-typescript";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildOpenApiDocument } from "../../src/app/openapi.ts";
import { JobEndedEvent } from "../../src/jobs/events.ts";
import { EVENT_TYPES } from "../../src/webhooks/types.ts";
import { type FakeBluesky, imagesThread, linkOf, startFakeBluesky } from "../fakes/bluesky.ts";
import { makeKey } from "../helpers/app.ts";
import { type JobService, startJobService } from "../helpers/job-service.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { scaled } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

const document = buildOpenApiDocument() as {
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
};

test("the document's webhooks describe every event, and openapi-typescript makes their payloads' types", async () => {
  expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
  const types = astToString(await openapiTS(document as never));
  expect(types).toMatch(/webhooks \{[\s\S]*"job\.completed"/);
  for (const name of ["JobEndedEvent", "JobItemFailedEvent", "WatchFoundEvent"]) {
    expect(types).toMatch(new RegExp(`${name}: \\{`));
    expect(types).toContain(`components["schemas"]["${name}"]`);
  }
  expect(types).toMatch(/JobEndedEvent: \{[\s\S]*?archiveUrl: string \| null;\s*\};/);
  expect(types).toMatch(
    /WatchFoundEvent: \{[\s\S]*?posts: \{[\s\S]*?post: components\["schemas"\]\["PostRecord"\] \| null;/,
  );
  // The event's POST carries the envelope whose data is the payload.
  expect(types).toMatch(
    /event_job_completed: \{[\s\S]*?type: "job\.completed";[\s\S]*?data: components\["schemas"\]\["JobEndedEvent"\];/,
  );
});

describe("a job.completed delivery", () => {
  let bluesky: FakeBluesky;
  let receiver: Receiver;
  let service: JobService;

  beforeAll(async () => {
    [bluesky, receiver] = await Promise.all([startFakeBluesky(), startReceiver()]);
    service = await startJobService({
      BLUESKY_APPVIEW_URL: bluesky.origin,
      ORIGIN_OVERRIDES: bluesky.originOverrides,
      WEBHOOK_EXTRA_HOSTS: receiver.endpoint,
    });
    await service.app.events!.work();
  }, scaled(120_000));
  afterAll(async () => {
    await service?.close();
    await Promise.all([bluesky?.close(), receiver?.close()]);
  });

  test(
    "is its schema's payload, with a signed archiveUrl that fetches the ZIP",
    { timeout: scaled(120_000) },
    async () => {
      const app = service.app;
      const key = await makeKey(service.store.db, "PRO");
      const hook = (await (await app.post("/api/v1/webhooks", key.plain, {
        url: receiver.url,
        events: ["job.completed"],
      })).json()) as { id: string; secret: string };
      const created = await app.post("/api/v1/jobs", key.plain, {
        urls: [linkOf(imagesThread.thread.post)],
        files: true,
        webhook: hook.id,
      });
      expect(created.status).toBe(202);
      const job = (await created.json()) as { id: string };
      const [delivery] = await until("the job's end delivered", () => {
        const ofJob = receiver.events("job.completed").filter((each) => JSON.parse(each.body).data.id === job.id);
        return ofJob.length > 0 ? ofJob : undefined;
      });
      const body = new Webhook(hook.secret).verify(delivery!.body, delivery!.headers) as {
        type: string;
        timestamp: string;
        data: unknown;
      };
      expect(body.type).toBe("job.completed");
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      // Strict: the delivery carries nothing its schema does not describe.
      const data = JobEndedEvent.strict().parse(body.data);
      expect(data.counts).toEqual({ total: 1, done: 1, failed: 0, linksRead: 1 });
      // The job as GET shows it, but for the items and the link's own expiry.
      const shown = (await (await app.get(`/api/v1/jobs/${job.id}`, key.plain)).json()) as Record<string, unknown>;
      const { archiveUrl: _shownLink, items: _items, nextCursor: _cursor, ...record } = shown;
      const { archiveUrl, ...told } = data;
      expect(told).toEqual(record);
      const link = new URL(archiveUrl!);
      expect(link.pathname).toBe(`/api/v1/jobs/${job.id}/archive`);
      expect(link.searchParams.get("sig")).toBeTruthy();
      const archive = await app.get(link.pathname + link.search);
      expect(archive.status).toBe(200);
      expect(archive.headers.get("content-type")).toBe("application/zip");
      const bytes = new Uint8Array(await archive.arrayBuffer());
      expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    },
  );
});
