// A job's items when their platform rests (src/jobs/runner.ts): X's reader stops asking X for a
// while after it failed, and says until when (Retry-After). An item that meets the rest waits it out
// on the queue and runs again, instead of spending its retries inside it: a job of X links whose
// platform failed for a few seconds completes with every item done.
import { afterAll, beforeAll, expect, test } from "vitest";
import { type FakeXUpstream, numberedPostId, startFakeXUpstream } from "../fakes/x-upstream.ts";
import { makeKey } from "../helpers/app.ts";
import { ended, type JobService, startJobService } from "../helpers/job-service.ts";
import { scaled } from "../helpers/slowness.ts";
import { until } from "../helpers/until.ts";

let x: FakeXUpstream;
let service: JobService;

beforeAll(async () => {
  x = await startFakeXUpstream();
  service = await startJobService({ X_SYNDICATION_URL: x.syndicationUrl });
}, scaled(60_000));
afterAll(async () => {
  await service?.close();
  await x?.close();
});

test("items that meet their platform's rest wait it out and are done once it answers again", {
  timeout: scaled(120_000),
}, async () => {
  const key = (await makeKey(service.store.db, "GOLD")).plain;
  x.setMode("syndication", { kind: "status", status: 503 });
  const urls = Array.from({ length: 6 }, (_, at) => `https://x.com/nasa/status/${numberedPostId(900 + at)}`);
  const created = await service.app.post("/api/v1/jobs", key, { urls });
  expect(created.status).toBe(202);
  // X fails longer than the queue's retries (2, a second apart and doubling) take to spend themselves.
  await until("X asked and refused thrice", () => x.calls() >= 3);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  x.setMode("syndication", { kind: "normal" });
  const job = await service.jobWhen<{ status: string; counts: { done: number; failed: number } }>(
    key,
    created.headers.get("location")!,
    ended,
    90_000,
  );
  expect(job).toMatchObject({ status: "completed", counts: { done: 6, failed: 0 } });
});
