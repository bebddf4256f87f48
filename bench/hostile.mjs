// Hostile pages against the built service (issue 32, its first "done when"): a post of a page
// that never ends, of a 400 MB page and of a page listing 200 000 videos, each alone and then all
// three at once, then four posts at once of the 200 000-video page (issue 43); how long each takes
// to be answered, with what, and the service's whole process tree's peak RSS (the service, the
// extraction host and its children), sampled every 100 ms; then whether a normal post still answers.
//
//   npm run bench -- hostile
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  clipRoutes,
  createAccountKeys,
  descendants,
  extractionHostPid,
  fmt,
  makeClip,
  printTable,
  rssMB,
  startService,
  startSite,
} from "./lib.mjs";

const TARGET = { seconds: 90, treeRssMB: 1024 };
const HUGE_BYTES = 400 * 1024 * 1024;
const VIDEOS = 200_000;

/** The three pages, served as fast as they are read. */
function hostileSite() {
  const filler = Buffer.alloc(1024 * 1024, "<p>filler</p>\n");
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://site").pathname;
    res.on("error", () => {});
    if (path === "/endless.html") return pour(res, { "content-type": "text/html" }, filler, Infinity);
    if (path === "/huge.html") {
      return pour(
        res,
        { "content-type": "text/html", "content-length": HUGE_BYTES },
        filler,
        HUGE_BYTES / filler.length,
      );
    }
    if (path === "/many-videos.html") {
      const videos = Array.from({ length: VIDEOS }, (_, i) => `<video src="/v/${i}.mp4" poster="/p/${i}.jpg"></video>`)
        .join("\n");
      return res.writeHead(200, { "content-type": "text/html" }).end(`<title>many</title>${videos}`);
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(
      0,
      "127.0.0.1",
      () =>
        resolve({
          url: `http://127.0.0.1:${server.address().port}`,
          close: () => new Promise((done) => server.close(done)),
          server,
        }),
    )
  );
}

/** Writes `chunk` `times` times, as fast as the reader takes it. */
function pour(res, headers, chunk, times) {
  res.writeHead(200, headers);
  let sent = 0;
  const more = () => {
    while (sent < times) {
      sent += 1;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    res.end();
  };
  res.once("close", () => (sent = times));
  more();
}

/** A post of `link`: its status, code and seconds. */
async function post(serviceUrl, key, link) {
  const started = performance.now();
  const response = await fetch(`${serviceUrl}/api/v1/post?url=${encodeURIComponent(link)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, code: body.code ?? "", seconds: (performance.now() - started) / 1000 };
}

/** Runs `work` while sampling the tree's RSS every 100 ms; its result with the peak. */
async function sampled(servicePid, work) {
  let peak = rssMB(descendants(servicePid));
  const sampler = setInterval(() => (peak = Math.max(peak, rssMB(descendants(servicePid)))), 100);
  try {
    return { ...(await work()), peak };
  } finally {
    clearInterval(sampler);
  }
}

export async function benchHostile() {
  const temp = mkdtempSync(join(tmpdir(), "bench-hostile-"));
  const stoppers = [];
  try {
    const hostile = await hostileSite();
    stoppers.push(hostile.close);
    const site = await startSite(clipRoutes(4, await makeClip(temp, 4)));
    stoppers.push(site.close);
    const env = {
      DATA_DIR: join(temp, "data"),
      EXTRA_PAGE_HOSTS: `${new URL(hostile.url).host},${new URL(site.url).host}`,
    };
    const [{ key }] = await createAccountKeys(env, { GOLD: 1 });
    const service = await startService(env);
    stoppers.push(service.stop);
    await extractionHostPid(service.url);
    const idle = rssMB(descendants(service.pid));
    const pages = {
      "a page that never ends": "/endless.html",
      "a 400 MB page": "/huge.html",
      "a page of 200 000 videos": "/many-videos.html",
    };
    const rows = [];
    const row = (what, answers, peak) => {
      const seconds = Math.max(...answers.map((each) => each.seconds));
      rows.push({
        what,
        answer: answers.map((each) => `${each.status} ${each.code}`.trim()).join(", "),
        seconds: `${fmt(seconds)} (target ≤ ${TARGET.seconds}: ${seconds <= TARGET.seconds ? "met" : "NOT met"})`,
        "tree's peak RSS": `${fmt(peak, 0)} MB (target < ${TARGET.treeRssMB}: ${
          peak < TARGET.treeRssMB ? "met" : "NOT met"
        })`,
      });
    };
    for (const [what, path] of Object.entries(pages)) {
      const { answer, peak } = await sampled(
        service.pid,
        async () => ({ answer: await post(service.url, key, `${hostile.url}${path}`) }),
      );
      row(what, [answer], peak);
    }
    // Links of their own, so that no answer comes from the service's cache of the first posts.
    const all = await sampled(
      service.pid,
      async () => ({
        answers: await Promise.all(
          Object.values(pages).map((path) => post(service.url, key, `${hostile.url}${path}?again`)),
        ),
      }),
    );
    row("all three at once", all.answers, all.peak);
    // Four links of their own (equal look-ups at once would share one run).
    const four = await sampled(
      service.pid,
      async () => ({
        answers: await Promise.all(
          [1, 2, 3, 4].map((n) =>
            post(service.url, key, `${hostile.url}${pages["a page of 200 000 videos"]}?four=${n}`)
          ),
        ),
      }),
    );
    row("four posts at once of the 200 000-video page", four.answers, four.peak);
    const normal = await sampled(
      service.pid,
      async () => ({ answer: await post(service.url, key, `${site.url}/clip4.html`) }),
    );
    row("a normal post afterwards", [normal.answer], normal.peak);
    printTable(
      `Hostile pages (issue 32): the tree at rest ${fmt(idle, 0)} MB RSS; load average ${
        loadavg().map((n) => fmt(n)).join(" ")
      }`,
      rows,
    );
  } finally {
    for (const stop of stoppers.reverse()) await stop();
    rmSync(temp, { recursive: true, force: true });
  }
}
