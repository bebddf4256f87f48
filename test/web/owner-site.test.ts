// The owner's site doing what the API does, in a real browser (Debian's Chromium through
// playwright-core) against the built service on the embedded store: a webhook endpoint, a post on
// the paste page with no poster (its video to play), its clip and its sound as MP3, a job of three
// links made on the paste page and followed on the jobs page to its end, its ZIP downloaded and
// tested whole, a watch made and paused, and the webhook's attempt naming the job, linked to it.
// Each page's screenshot goes to test-results/site/, or with SITE_SHOTS=docs/site to where docs/operating.md shows them.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { probeMedia } from "../helpers/media.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { type RunningService, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";
import { CHROMIUM_ARGS } from "./chromium.ts";

const run = promisify(execFile);
// The suite writes them under test-results/ (a run leaves the docs alone); SITE_SHOTS=docs/site renews the docs' own.
const SHOTS = process.env.SITE_SHOTS ?? "test-results/site";
// Caps on a hang, not timings of a fast step: yt-dlp runs for every look and item, slowly on a busy machine.
const poll = { timeout: scaled(240_000), interval: 500 };

describe(
  "the owner's site in Chromium: jobs, watches, webhooks and the paste page",
  { timeout: scaled(600_000) },
  () => {
    let dataDir: string;
    let service: RunningService;
    let browser: Browser;
    let site: MediaSite;
    let receiver: Receiver;

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      dataDir = mkdtempSync(join(tmpdir(), "owner-site-"));
      [site, receiver] = await Promise.all([startMediaSite(), startReceiver()]);
      service = await startService({
        DATA_DIR: dataDir,
        EXTRA_PAGE_HOSTS: site.host,
        WEBHOOK_EXTRA_HOSTS: receiver.endpoint,
      });
      browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    });

    afterAll(async () => {
      await browser?.close();
      await Promise.all([site?.close(), receiver?.close()]);
      await service?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** The page's main text, or "" while it is between two loads (the jobs page reloads itself). */
    const mainText = (page: Page) => page.textContent("main").then((text) => text ?? "", () => "");
    const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png` });

    it("makes a job of three links, follows it to its end, downloads its ZIP, makes a watch and reads the attempt", async () => {
      const context = await browser.newContext({ viewport: { width: 1024, height: 720 }, acceptDownloads: true });
      const page = await context.newPage();
      const password = "a long enough password";
      await page.goto(`${service.url}/sign-up`);
      await page.getByLabel("Email", { exact: true }).fill("site-owner@example.com");
      await page.getByLabel("Password", { exact: true }).fill(password);
      await page.getByLabel("Repeat the password").fill(password);
      await page.getByRole("button", { name: "Create account" }).click();
      await expect.poll(() => page.url(), poll).toContain("/profile/api-keys");

      await page.getByRole("link", { name: "Webhooks", exact: true }).click();
      await page.getByLabel("Receiver URL").fill(receiver.url);
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await expect.poll(() => mainText(page), poll).toContain("shown only this once");

      // A page's bare <video>: no poster, so the page shows the video itself, by its signed link.
      await page.getByRole("link", { name: "Paste a link", exact: true }).click();
      await page.getByLabel("Link to a post").fill(
        `${site.origin}/crafted.html?video=${encodeURIComponent(site.mp4Url)}`,
      );
      await page.getByLabel("Clip from").first().fill("1");
      await page.getByLabel("Clip to").first().fill("3");
      await page.getByRole("button", { name: "Show the post" }).click();
      await page.locator("#post-title").or(page.getByRole("alert")).first().waitFor(poll);
      expect(await page.getByRole("alert").count(), await mainText(page)).toBe(0);
      const video = page.locator("video[aria-label='Video 1']");
      const source = new URL((await video.getAttribute("src"))!);
      expect([source.pathname, source.searchParams.get("start"), source.searchParams.get("end")]).toEqual([
        "/api/v1/download",
        "1",
        "3",
      ]);
      const played = await fetch(source);
      expect([played.status, played.headers.get("content-type")]).toEqual([200, "video/mp4"]);
      expect((await probeMedia(new Uint8Array(await played.arrayBuffer()))).duration).toBeGreaterThan(1);
      const mp3 = page.getByRole("link", { name: "Download the sound of video 1 (MP3)" });
      const sound = await fetch((await mp3.getAttribute("href"))!);
      expect([sound.status, sound.headers.get("content-type")]).toEqual([200, "audio/mpeg"]);
      expect((await probeMedia(new Uint8Array(await sound.arrayBuffer()))).duration).toBeGreaterThan(1);
      await page.locator("article.post").evaluate((post) => post.scrollIntoView());
      await shot(page, "paste");

      // Three links as one job, through POST /api/v1/jobs as the key the paste page made.
      const links = [1, 2, 3].map((entry) => `${site.pages.progressive}?entry=${entry}`);
      await page.getByLabel("Links, one per line").fill(links.join("\n"));
      await page.getByRole("button", { name: "Make the job" }).click();
      await expect.poll(() => page.url(), poll).toMatch(/\/profile\/jobs\?id=[0-9a-f-]{36}&notice=made$/);
      const jobId = new URL(page.url()).searchParams.get("id")!;
      expect(await mainText(page)).toContain("The job is made and queued");
      // No JavaScript: the page loads itself again while the job runs, until it says the job has completed.
      await expect.poll(() => mainText(page), poll).toContain("3 done, 0 failed, of 3 items so far; 3 of 3 links read");
      await expect.poll(() => page.locator(".badge").first().textContent().catch(() => ""), poll).toBe("completed");
      await page.getByRole("link", { name: "All your jobs" }).click();
      await shot(page, "jobs");

      const archive = page.getByRole("link", { name: "Download the archive (ZIP)" });
      const [download] = await Promise.all([page.waitForEvent("download"), archive.click()]);
      expect(await download.failure()).toBeNull();
      const zip = join(dataDir, "job.zip");
      await download.saveAs(zip);
      expect((await run("unzip", ["-t", zip])).stdout).toMatch(/No errors detected/);
      const names = (await run("unzip", ["-Z1", zip])).stdout.trim().split("\n");
      expect(names).toHaveLength(4);
      expect(names.at(-1)).toBe("records.json");

      await page.getByRole("link", { name: "Watches", exact: true }).click();
      await page.getByLabel("Channel, playlist or profile").fill(site.pages.growingFeed);
      await page.getByLabel("Every").fill("1d");
      await page.getByRole("button", { name: "Watch it" }).click();
      await expect.poll(() => mainText(page), poll).toContain("The watch is made");
      const row = page.getByRole("row", { name: /growing-feed/ });
      expect(await row.count()).toBe(1);
      await shot(page, "watches");
      await row.getByRole("button", { name: "Pause" }).click();
      await expect.poll(() => mainText(page), poll).toContain("The watch is paused");

      // The webhook's attempt of the job's end names the job and links to it.
      await page.getByRole("link", { name: "Webhooks", exact: true }).click();
      const attempt = page.getByRole("row", { name: /job\.completed/ });
      await expect.poll(async () => {
        await page.reload();
        return attempt.count();
      }, poll).toBe(1);
      expect(await attempt.getByRole("cell").nth(2).textContent()).toContain(`job ${jobId.slice(0, 8)}`);
      await shot(page, "webhooks");
      await attempt.getByRole("link", { name: /^job / }).click();
      expect(page.url()).toBe(`${service.url}/profile/jobs?id=${jobId}`);
      expect(await page.locator(`#job-${jobId}`).count()).toBe(1);
      expect(receiver.events("job.completed").map((each) => JSON.parse(each.body).data.id)).toEqual([jobId]);

      // A form of another site, with the owner's cookies, makes no job.
      const forged = await context.request.post(`${service.url}/profile/jobs`, {
        headers: { origin: "http://127.0.0.1:9" },
        form: { links: links[0]!, csrf: "guess" },
      });
      expect(forged.status()).toBe(403);
      await context.close();
    });
  },
);
