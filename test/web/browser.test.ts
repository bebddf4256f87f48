// The owner's page in a real browser (Debian's Chromium through playwright-core) against the built
// service on the embedded store: sign up, sign in, a key's whole life, sign out, and a forged post
// from another origin. The operator's command line looks at the same data on the way.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clipDurationSec, type MediaSite, startMediaSite } from "../fakes/media-site.ts";
import { probeMedia } from "../helpers/media.ts";
import { runAdmin, type RunningService, startService } from "../helpers/service.ts";
import { scaled } from "../helpers/slowness.ts";
import { CHROMIUM_ARGS } from "./chromium.ts";

const usage = (url: string, key: string) =>
  fetch(`${url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.status);

// Each step waits for the page to show what it expects, and the first test also runs the command
// line a few times: on a busy machine that takes well over 30 s. The caps (the test's, and each
// expect.poll's, whose default is 1 s) bound a hang; they do not time a fast step.
const poll = { timeout: scaled(60_000) };

describe("the owner's page in Chromium", { timeout: scaled(300_000) }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: RunningService;
  let browser: Browser;
  let evil: Server;
  let evilUrl: string;
  let site: MediaSite;

  beforeAll(async () => {
    mkdirSync("test-results", { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), "web-e2e-"));
    site = await startMediaSite();
    env = { DATA_DIR: dataDir, EXTRA_PAGE_HOSTS: site.host };
    service = await startService(env);
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
    // Another origin (same host, other port): cookies are sent along, so only the origin check
    // and the CSRF token stand between it and the owner's keys.
    evil = createServer((_, res) => {
      res.setHeader("content-type", "text/html");
      res.end(`<form method="post" action="${service.url}/profile/api-keys">
        <input name="name" value="stolen"><input name="expires" value="never"><input name="csrf" value="guess">
        <button id="go">go</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    evilUrl = `http://127.0.0.1:${(evil.address() as { port: number }).port}/`;
  });

  afterAll(async () => {
    await browser?.close();
    evil?.close();
    await site?.close();
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${service.url}/sign-in`);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  it("signs up, signs in, and takes a key from creation to deletion", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url });
    const page = await context.newPage();
    const email = "owner@example.com";
    const password = "a long enough password";

    await page.goto(`${service.url}/sign-up`);
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByLabel("Repeat the password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.url(), poll).toBe(`${service.url}/profile/api-keys?notice=welcome`);
    await expect.poll(() => page.getByRole("status").textContent(), poll).toContain("Your account is ready");

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.getByRole("status").textContent(), poll).toContain("You are signed out");
    await signIn(page, email, "not the password");
    await expect.poll(() => page.getByRole("alert").textContent(), poll).toBe("Wrong email or password.");
    await page.screenshot({ path: "test-results/sign-in.png" });
    await signIn(page, email, password);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), poll).toBe("API keys");

    await page.getByLabel("Name", { exact: true }).fill("laptop <script>");
    await page.getByLabel("Expires after").selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), poll).toBe("Your new API key");
    expect(await page.textContent("body")).toContain("shown only this once");
    const key = (await page.locator("#new-key").textContent())!;
    expect(key).toMatch(/^xva_[\w-]{43}$/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await expect.poll(() => page.getByRole("status").textContent(), poll).toBe("Copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await page.screenshot({ path: "test-results/new-key.png" });

    expect(await usage(service.url, key)).toBe(200);
    await page.getByRole("link", { name: "Done, back to my keys" }).click();
    const row = page.getByRole("row", { name: /laptop <script>/ });
    expect(await page.content()).not.toContain(key);
    expect(await row.textContent()).toContain(key.slice(0, 10));
    expect(await row.getByRole("cell").allTextContents()).toEqual([
      "laptop <script>",
      `${key.slice(0, 10)}…`,
      "FREE",
      "Usable",
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      "1 of 100",
      expect.any(String),
    ]);

    // The operator sees the same key, and a change made there shows on the page.
    const listed = await runAdmin(["keys", "list", "--email", email], env);
    const id = listed.stdout.trim().split("\n")[1]!.split("\t")[0]!;
    expect(listed.stdout).toContain(
      `${key.slice(0, 10)}...\tFREE\tusable\t1/100\towner@example.com\tlaptop <script>\t`,
    );
    expect((await runAdmin(["keys", "tier", id, "PRO"], env)).code).toBe(0);
    await page.reload();
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("PRO");
    expect(await row.getByRole("cell").nth(7).textContent()).toBe("1 of 10000");

    await page.screenshot({ path: "test-results/profile-api-keys.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: "test-results/profile-api-keys-narrow.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    await row.getByRole("button", { name: /Turn passive/ }).click();
    await expect.poll(() => row.getByRole("cell").nth(3).textContent(), poll).toBe("Passive");
    expect(await usage(service.url, key)).toBe(403);
    await row.getByRole("button", { name: /Make usable/ }).click();
    await expect.poll(() => row.getByRole("cell").nth(3).textContent(), poll).toBe("Usable");
    expect(await usage(service.url, key)).toBe(200);

    await row.getByRole("link", { name: /Delete/ }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), poll).toBe(
      "Delete the key “laptop <script>”?",
    );
    await page.screenshot({ path: "test-results/delete-key.png" });
    await page.getByRole("button", { name: "Delete key" }).click();
    await expect.poll(() => page.getByRole("status").textContent(), poll).toBe("The key is deleted.");
    expect(await row.count()).toBe(0);
    expect(await usage(service.url, key)).toBe(401);

    // A form on another origin posts with the owner's cookies, and is refused.
    await page.goto(evilUrl);
    const [refused] = await Promise.all([page.waitForResponse(`${service.url}/profile/api-keys`), page.click("#go")]);
    expect(refused.status()).toBe(403);
    expect(await page.textContent("main")).toContain("sent from another site");
    expect((await runAdmin(["keys", "list", "--email", email], env)).stdout.trim().split("\n")).toHaveLength(1);

    await page.goto(`${service.url}/profile/api-keys`);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.url(), poll).toBe(`${service.url}/sign-in?notice=signed-out`);
    await page.goto(`${service.url}/profile/api-keys`);
    expect(page.url()).toBe(`${service.url}/sign-in`);
    await context.close();
  });

  it("reaches the paste page from the key page at a phone's width, shows a pasted post and downloads the whole file", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, acceptDownloads: true });
    const page = await context.newPage();
    const password = "a long enough password";
    await page.goto(`${service.url}/sign-up`);
    await page.getByLabel("Email", { exact: true }).fill("paster@example.com");
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByLabel("Repeat the password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByLabel("Name", { exact: true }).fill("phone");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), poll).toBe("Your new API key");
    // The page that showed the key shows it no more when reloaded, and makes no second key.
    await page.reload();
    await expect.poll(() => page.getByRole("status").first().textContent(), poll).toContain(
      "A new key is shown only once",
    );
    expect(await page.getByRole("row", { name: /phone/ }).count()).toBe(1);

    await page.getByRole("link", { name: "Paste a link", exact: true }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), poll).toBe("Paste a link");
    await page.getByLabel("Link to a post").fill(site.pages.progressive);
    await page.getByRole("button", { name: "Show the post" }).click();
    // The service runs yt-dlp on the page first: on a busy machine that takes a while.
    await page.locator("#post-title").or(page.getByRole("alert")).first().waitFor({
      timeout: scaled(240_000),
    });
    expect(await page.getByRole("alert").count(), (await page.textContent("main")) ?? "").toBe(0);
    expect(await page.locator("#post-title").textContent()).toContain("Progressive test clip");
    const poster = page.getByRole("img", { name: "Poster of video 1" });
    await expect.poll(() => poster.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
      timeout: scaled(30_000),
    }).toBeGreaterThan(0);
    await page.screenshot({ path: "test-results/paste-narrow.png", fullPage: true });

    const button = page.getByRole("link", { name: /^Download video 1/ }).first();
    const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
    expect(await download.failure()).toBeNull();
    const saved = readFileSync((await download.path())!);
    expect((await probeMedia(saved)).duration).toBeCloseTo(clipDurationSec, 0);
    // The same signed link, fetched with no header: the same whole file, byte for byte.
    const again = await fetch((await button.getAttribute("href"))!);
    expect(again.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await again.arrayBuffer()), saved)).toBe(0);
    await context.close();
  });
  it("lets an owner who just signed up paste a link and download the whole file, with no key made first", async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const password = "a long enough password";
    await page.goto(`${service.url}/sign-up`);
    await page.getByLabel("Email", { exact: true }).fill("first-day@example.com");
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByLabel("Repeat the password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.url(), poll).toBe(`${service.url}/profile/api-keys?notice=welcome`);

    await page.getByRole("link", { name: "Paste a link", exact: true }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), poll).toBe("Paste a link");
    await page.getByLabel("Link to a post").fill(site.pages.progressive);
    const button = page.getByRole("button", { name: "Show the post" });
    expect(await button.isEnabled()).toBe(true);
    await button.click();
    await page.locator("#post-title").or(page.getByRole("alert")).first().waitFor({
      timeout: scaled(240_000),
    });
    expect(await page.getByRole("alert").count(), (await page.textContent("main")) ?? "").toBe(0);
    expect(await page.locator("#post-title").textContent()).toContain("Progressive test clip");

    const link = page.getByRole("link", { name: /^Download video 1/ }).first();
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(await download.failure()).toBeNull();
    const saved = readFileSync((await download.path())!);
    expect((await probeMedia(saved)).duration).toBeCloseTo(clipDurationSec, 0);
    // The look and the download were counted against the key made for the page, which the keys page shows.
    await page.goto(`${service.url}/profile/api-keys`);
    const row = page.getByRole("row", { name: /Paste page/ });
    expect(await row.count()).toBe(1);
    await context.close();
  });
});
