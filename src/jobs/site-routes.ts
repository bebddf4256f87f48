// The owner's jobs page: their jobs newest first, followed while they run, cancelled with a
// button, each finished one's archive by its signed link; and the paste page's job form, which
// makes the job through POST /api/v1/jobs as the key the owner chooses (web/owner-api.ts): the
// same checks, the same counting, no second way of making a job.
import { ApiError } from "../http/problem.ts";
import type { Route } from "../http/router.ts";
import { linkBase, linkSigner } from "../auth/link-caller.ts";
import { htmlResponse } from "../web/html.ts";
import { noKeyProblem, type OwnerApi, ownerApi } from "../web/owner-api.ts";
import { type JobFields, pastePage } from "../web/paste-page.ts";
import { clipOf, pastePolicy } from "../web/paste-routes.ts";
import { JOBS_PAGE, type OwnerRequest, redirect, type Site, type SiteHandler } from "../web/site.ts";
import type { Job } from "./job.ts";
import { JOB_ARCHIVE_PATH, JOBS_PATH } from "./own-job.ts";
import { jobsPage, type JobView } from "./pages.ts";
import { cancelJob, itemsOf, jobOf, jobsOf } from "./store.ts";
import { ITEMS_PER_PAGE, JOBS_PER_PAGE } from "./view.ts";

const notices: Record<string, string> = {
  made: "The job is made and queued; this page follows it.",
  cancelled: "The job is cancelled: its items that had not run will not.",
};

export interface JobPagesDeps {
  /** How long the archive's signed link works (LINK_TTL_S). */
  linkTtlS: number;
}

export function jobPages(site: Site, deps: JobPagesDeps): Route<SiteHandler>[] {
  const { db, now } = site;
  const api = ownerApi(site);

  /** A job as the page shows it: its failed items, and its archive's link, signed for the job's key, once it has finished. */
  const viewOf = async (ctx: OwnerRequest, job: Job): Promise<JobView> => {
    const problems = job.counts.failed === 0
      ? []
      : (await itemsOf(db, job.id, { after: 0, limit: ITEMS_PER_PAGE })).filter((item) => item.status === "failed");
    const settings = { db, publicUrl: site.deps.publicUrl, ttlS: deps.linkTtlS };
    const archive = JOB_ARCHIVE_PATH.replace("{id}", encodeURIComponent(job.id));
    const archiveUrl = job.finishedAt !== null && job.counts.done > 0
      ? await linkSigner(settings, ctx.request, job.apiKeyId, now(), archive)({})
      : null;
    return { job, problems, archiveUrl };
  };

  const render = async (ctx: OwnerRequest, error?: string, status = 200) => {
    const id = ctx.url.searchParams.get("id");
    const jobs = id === null
      ? await jobsOf(db, ctx.caller.session.accountId, { after: null, limit: JOBS_PER_PAGE + 1 })
      : [await jobOf(db, id, ctx.caller.session.accountId)].filter((job) => job !== null);
    if (id !== null && jobs.length === 0) throw new ApiError("not_found", "You have no such job.");
    const views = await Promise.all(jobs.slice(0, JOBS_PER_PAGE).map((job) => viewOf(ctx, job)));
    const notice = notices[ctx.url.searchParams.get("notice") ?? ""];
    const page = jobsPage({
      owner: ctx.caller.owner,
      jobs: views,
      one: id !== null,
      more: jobs.length > JOBS_PER_PAGE,
      notice,
      error,
    });
    return htmlResponse(page, { status });
  };

  const make = jobMaker(site, api);

  const cancel = site.signedIn(async (ctx) => {
    const cancelled = await cancelJob(db, ctx.form.get("id") ?? "", ctx.caller.session.accountId, now());
    if (cancelled === null) return render(ctx, "You have no such job.", 404);
    return redirect(`${JOBS_PAGE}?notice=cancelled`);
  });

  return [
    { method: "GET", path: JOBS_PAGE, handler: site.signedIn((ctx) => render(ctx)) },
    { method: "POST", path: JOBS_PAGE, handler: make },
    { method: "POST", path: `${JOBS_PAGE}/cancel`, handler: cancel },
  ];
}

/** The paste page's job form: the job made through the API, or the paste page again saying why not. */
function jobMaker(site: Site, api: OwnerApi): SiteHandler {
  /** The paste page again, its job form as sent, with why the job was not made. */
  const refused = async (ctx: OwnerRequest, job: JobFields, jobError: string, status: number) => {
    const keys = await api.usableKeys(ctx);
    const view = {
      owner: ctx.caller.owner,
      keys,
      keyId: ctx.form.get("key") ?? keys[0]?.id,
      link: "",
      clip: { start: "", end: "" },
      apiBase: linkBase(site.deps, ctx.request),
      job,
      jobError,
    };
    return htmlResponse(pastePage(view), { status, headers: { "content-security-policy": pastePolicy } });
  };

  return site.signedIn(async (ctx) => {
    const fields: JobFields = {
      links: ctx.form.get("links") ?? "",
      files: ctx.form.get("files") !== "false",
      start: (ctx.form.get("start") ?? "").trim(),
      end: (ctx.form.get("end") ?? "").trim(),
    };
    const urls = fields.links.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
    if (urls.length === 0) return refused(ctx, fields, "Write at least one link, one per line.", 400);
    const bounds = clipOf(fields.start, fields.end);
    if ("error" in bounds) return refused(ctx, fields, bounds.error, 400);
    const keys = await api.usableKeys(ctx);
    const key = await api.keyFor(ctx, keys, ctx.form.get("key") ?? keys[0]?.id ?? null);
    if (!key) {
      const { status, error } = noKeyProblem(keys.length);
      return refused(ctx, fields, error, status);
    }
    const answer = await api.call(ctx, key, JOBS_PATH, { body: { urls, files: fields.files, ...bounds.params } });
    const body = await answer.json();
    if (!answer.ok) return refused(ctx, fields, String(body.detail ?? body.title), answer.status);
    return redirect(`${JOBS_PAGE}?id=${encodeURIComponent(body.id)}&notice=made`);
  });
}
