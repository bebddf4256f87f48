// The jobs page of the owner's site, as a function of what it shows: the account's jobs newest
// first, each with its progress, its items' problems, a cancel button while it runs and its
// archive once it has finished. No I/O here.
import type { Job, JobItem } from "./job.ts";
import { documentOf, type Html, html } from "../web/html.ts";
import { formatTime, itemAction, message, type Owner } from "../web/pages.ts";
import { jobLink, JOBS_PAGE } from "../web/site.ts";

/** While a job shown runs, the page loads itself again after this many seconds: progress without JavaScript. */
export const JOBS_REFRESH_S = 3;
/** The links of a job the page lists; the rest are counted. */
const LINKS_SHOWN = 10;

export interface JobView {
  job: Job;
  /** Its failed items (a page of them), each with its problem. */
  problems: JobItem[];
  /** The signed link to its archive once it has finished with an item done; else null. */
  archiveUrl: string | null;
}

const running = (job: Job) => job.status === "queued" || job.status === "running";

const badges: Record<Job["status"], string> = {
  queued: "passive",
  running: "passive",
  completed: "usable",
  failed: "expired",
  cancelled: "expired",
};

function progressOf(job: Job): Html {
  const { total, done, failed, linksRead } = job.counts;
  return html`<p><progress max="${Math.max(total, 1)}" value="${
    done + failed
  }" aria-label="Items settled"></progress><br>
  ${done} done, ${failed} failed, of ${total} items so far; ${linksRead} of ${job.request.urls.length} links read${
    job.complete ? "" : html`. <strong>Incomplete:</strong> ${job.incomplete}`
  }</p>`;
}

function requestOf(job: Job): Html {
  const { urls, files, clip } = job.request;
  const cut = clip
    ? `, each video from ${clip.startSec} s to ${clip.endSec === null ? "its end" : `${clip.endSec} s`}`
    : "";
  return html`
    <p class="muted">${files ? "Files and records" : "Records alone"}${cut}${job.request.runAt
      ? `, starting ${job.request.runAt}`
      : ""}.</p>
    <ul class="links">${urls.slice(0, LINKS_SHOWN).map((url) =>
      html`<li><code>${url.href}</code></li>`
    )}${urls.length > LINKS_SHOWN ? html`<li class="muted">and ${urls.length - LINKS_SHOWN} more</li>` : ""}</ul>
  `;
}

function problemsOf(view: JobView): Html | string {
  if (view.problems.length === 0) return "";
  return html`
    <h3>Problems</h3>
    <ul class="problems">${view.problems.map((item) =>
      html`<li>Item ${item.position}, <code>${item.url}</code>: ${item.problem?.detail ?? ""} <span class="muted">(${
        item.problem?.code ?? ""
      })</span></li>`
    )}</ul>
  `;
}

function jobCard(view: JobView, owner: Owner): Html {
  const { job } = view;
  const item = { page: JOBS_PAGE, id: job.id, csrf: owner.csrf };
  const archive = view.archiveUrl
    ? html`<a class="button" href="${view.archiveUrl}" download>Download the archive (ZIP)</a>`
    : "";
  return html`<section class="card" id="job-${job.id}" aria-label="Job ${job.id}">
  <h2><span class="badge ${badges[job.status]}">${job.status}</span> <a href="${
    jobLink(job.id)
  }">Job of ${job.request.urls.length} ${job.request.urls.length === 1 ? "link" : "links"}</a></h2>
  <p class="muted">Id <code>${job.id}</code>, made ${formatTime(job.createdAt, "")}${
    job.finishedAt ? html`, finished ${formatTime(job.finishedAt, "")}` : ""
  }</p>
  ${progressOf(job)}
  ${requestOf(job)}
  ${problemsOf(view)}
  <div class="actions">${archive}${running(job) ? itemAction(item, "cancel", "Cancel", "danger") : ""}</div>
</section>`;
}

export function jobsPage(
  view: { owner: Owner; jobs: JobView[]; one: boolean; more: boolean; notice?: string; error?: string },
): Html {
  return documentOf(
    {
      title: "Jobs",
      account: view.owner,
      refreshS: view.jobs.some((each) => running(each.job)) ? JOBS_REFRESH_S : undefined,
    },
    html`
      <h1>Jobs</h1>
      <p
        class="muted">Your account's jobs, newest first: made on <a href="/paste">the paste page</a> or with POST /api/v1/jobs, and by your watches' runs. The page follows a job under way by itself.</p>
      ${message(view.notice, "notice")}${message(view.error, "error")}
      ${view.one ? html`<p><a href="${JOBS_PAGE}">All your jobs</a></p>` : ""}
      ${view.jobs.length === 0
        ? html`<p class="muted">No jobs yet.</p>`
        : view.jobs.map((each) => jobCard(each, view.owner))}
      ${view.more ? html`<p class="muted">Older jobs are listed by GET /api/v1/jobs.</p>` : ""}
    `,
  );
}
