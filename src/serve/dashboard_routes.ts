/**
 * The dashboard's routes: `/new` (the forms), the live log tail a job page frames, and the actions its buttons post
 * to under /ui/: schedule, cancel, rerun, addschedule, pauseschedule, resumeschedule and delschedule. Each action
 * checks the session's token (csrf.ts) before anything else, then goes through the same checks as its JSON endpoint
 * (checkSchedule, checkAddSchedule, the job service, the scheduler), and answers by sending the browser on with a 303,
 * so reloading the page it lands on does not post again.
 */
import type { Context, Hono } from "hono";
import type { Logger } from "../spider/types.ts";
import { localTimeZone } from "./cron.ts";
import { CsrfTokens, sessionCookie, sessionOf, TOKEN_FIELD } from "./csrf.ts";
import type { Back, PageActions } from "./dashboard_forms.ts";
import { type FormKind, type ProjectSpiders, renderNewJobPage } from "./dashboard_new_page.ts";
import { DASHBOARD_CSP, renderMessagePage, renderTail, TAIL_BYTES, TAIL_CSP } from "./dashboard_pages.ts";
import { formToParams, keptValues, rerunParams } from "./dashboard_params.ts";
import { maskSecrets } from "../log.ts";
import { readTail } from "./file_tail.ts";
import { forwardedPrefix } from "./forwarded_prefix.ts";
import { tooManyFields, urlencodedFields } from "./form_fields.ts";
import { isServeName } from "./names.ts";
import { jobPageUrl } from "./page_parts.ts";
import { checkSchedule, isRefusal, ScheduleError } from "./schedule.ts";
import { checkAddSchedule } from "./schedule_params.ts";
import { ScheduleExistsError } from "./schedule_store.ts";
import type { Scheduler } from "./scheduler.ts";
import { parseBasic } from "./security.ts";
import { JobExistsError, type JobRecord, type JobService, type ProjectRegistry, type ServePaths } from "./types.ts";

export interface DashboardOptions {
  jobs: JobService;
  registry: ProjectRegistry;
  paths: ServePaths;
  schedules?: Scheduler;
  nodeName: string;
  log?: Logger;
  /** Whether the forms may be used at all (security.ts's dashboardAllowed); without, the pages have no buttons. */
  enabled: boolean;
}

/** app.ts's way of answering with an HTML page under a given CSP. */
export type PageResponder = (c: Context, html: string, csp: string, status?: 200 | 400 | 403 | 404) => Response;

/** The dashboard of one app: its own token key, so two apps in one process share nothing. */
export interface Dashboard {
  /** The buttons' token for this browser, giving it a session cookie when it has none; undefined when disabled. */
  actions(c: Context): PageActions | undefined;
  /** Adds the routes to `app`. */
  addRoutes(app: Hono, page: PageResponder): void;
}

/** The username of the request's login ("" without one): tokens are bound to it. */
function username(c: Context): string {
  return parseBasic(c.req.header("authorization"))?.username ?? "";
}

/**
 * A form body (the browser sends urlencoded); anything else, or a body of more fields than any of the forms has
 * (form_fields.ts), reads as an empty form, which the token check refuses.
 */
async function formOf(c: Context): Promise<URLSearchParams> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (!type.startsWith("application/x-www-form-urlencoded")) return new URLSearchParams();
  const body = await c.req.text();
  return tooManyFields(urlencodedFields(body)) ? new URLSearchParams() : new URLSearchParams(body);
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const { jobs, registry, paths, schedules, nodeName, log } = options;
  const tokens = new CsrfTokens();

  const token = (c: Context): string => {
    let session = sessionOf(c.req.header("cookie"));
    if (session === undefined) {
      session = tokens.newSession();
      c.header("Set-Cookie", sessionCookie(session));
    }
    return tokens.token(session, username(c));
  };
  const actions = (c: Context): PageActions | undefined => options.enabled ? { token: token(c) } : undefined;

  /** A 303 to a path of the service, under the proxy's prefix when there is one. */
  const seeOther = (c: Context, path: string) =>
    c.redirect(`${forwardedPrefix(c.req.header("x-forwarded-prefix"))}${path}`, 303);

  /** Every project's spiders, for the forms' list. */
  const projectSpiders = (): Promise<ProjectSpiders[]> =>
    Promise.all(
      registry.names().map(async (project) => {
        const { spiders, errors } = await registry.spiders(project);
        return { project, spiders: [...new Set(spiders.map((spider) => spider.name))].sort(), errors };
      }),
    );

  const addRoutes = (app: Hono, page: PageResponder) => {
    const newJobPage = async (c: Context, refused?: { form: FormKind; message: string; values: URLSearchParams }) => {
      const html = renderNewJobPage({
        nodeName,
        projects: await projectSpiders(),
        token: token(c),
        schedules: schedules !== undefined,
        refused: refused && keptForm(refused),
        defaultTimezone: localTimeZone(),
      });
      return page(c, html, DASHBOARD_CSP, refused ? 400 : 200);
    };
    const message = (c: Context, title: string, text: string, status: 400 | 403 | 404, back = "/") =>
      page(c, renderMessagePage(nodeName, title, text, back), DASHBOARD_CSP, status);

    app.get("/new", (c) =>
      options.enabled ? newJobPage(c) : message(
        c,
        "The dashboard's forms are off",
        "This service listens on an address other machines can reach without a login (--insecure-no-auth), where " +
          "any web page could use these forms by pointing a name of its own at it (DNS rebinding). Set a login " +
          "(NETWEIR_SERVE_USERNAME and NETWEIR_SERVE_PASSWORD) to use them.",
        403,
      ));

    app.get("/job/:project/:job/tail", async (c) => {
      const job = jobNamed(jobs, c.req.param("project"), c.req.param("job"));
      if (!job) return message(c, "No such job", "There is no such job in this project.", 404);
      const tail = renderTail(await readTail(paths.logFile(job), TAIL_BYTES), job.state !== "finished");
      return page(c, tail, TAIL_CSP);
    });

    /**
     * An action: the token checked first (a missing or wrong one is refused before the form is read any further),
     * then `run`, whose refusals (the request's fault) come back as a message page.
     */
    const action = (name: string, run: (form: URLSearchParams, c: Context) => Response | Promise<Response>) => {
      app.post(`/ui/${name}`, async (c) => {
        const form = await formOf(c);
        if (!options.enabled || !tokens.check(form.get(TOKEN_FIELD), sessionOf(c.req.header("cookie")), username(c))) {
          return message(
            c,
            "Not done",
            "This form is out of date or was not sent from this service's own page (its token does not match " +
              "this browser's session, or the service has restarted since): reload the page and send it again.",
            403,
          );
        }
        try {
          return await run(form, c);
        } catch (thrown) {
          if (!isRefusal(thrown)) throw thrown;
          return message(c, "Not done", maskSecrets(thrown.message), 400);
        }
      });
    };

    /** The job a button names (its target, PROJECT/JOB), or a refusal. */
    const formJob = (form: URLSearchParams): JobRecord => {
      const [project, id] = targetOf(form);
      const job = jobNamed(jobs, project, id);
      if (!job) throw new ScheduleError(`job '${id}' not found in project '${project}'`);
      return job;
    };
    const backTo = (form: URLSearchParams, job: JobRecord) =>
      (form.get("back") as Back | null) === "list" ? "/" : jobPageUrl(job);

    action("schedule", async (form, c) => {
      try {
        const job = await checkSchedule(formToParams(form), { registry, paths });
        const added = jobs.schedule(job);
        log?.info(`dashboard: scheduled job ${added.id}`, { project: added.project, spider: added.spider });
        return seeOther(c, jobPageUrl(added));
      } catch (thrown) {
        // Each kind tested on its own: JobExistsError is an Error in shape, so `!isRefusal(x) && !(x instanceof
        // JobExistsError)` narrowed the refusal branch to never in some checks of the module graph.
        let text: string;
        if (thrown instanceof JobExistsError) text = `job '${form.get("jobid")}' already exists (job ids ignore case)`;
        else if (isRefusal(thrown)) text = thrown.message;
        else throw thrown;
        return newJobPage(c, { form: "run", message: text, values: form });
      }
    });

    action("cancel", (form, c) => {
      const job = formJob(form);
      const was = jobs.cancel(job.project, job.id);
      if (was === "pending" || was === "running") {
        log?.info(`dashboard: cancelled job ${job.id}`, { project: job.project, prevstate: was });
      }
      return seeOther(c, backTo(form, job));
    });

    action("rerun", async (form, c) => {
      const old = formJob(form);
      if (old.state !== "finished") throw new ScheduleError(`job '${old.id}' has not finished: cancel it first`);
      const job = await checkSchedule(rerunParams(old, paths.dataDir(old.project)), { registry, paths });
      const added = jobs.schedule(job);
      log?.info(`dashboard: job ${added.id} re-runs job ${old.id}`, { project: added.project, spider: added.spider });
      return seeOther(c, jobPageUrl(added));
    });

    if (!schedules) return;

    action("addschedule", async (form, c) => {
      try {
        const added = schedules.add(await checkAddSchedule(formToParams(form), { registry, paths }));
        log?.info(`dashboard: added schedule ${added.id}`, { project: added.job.project, cron: added.cron });
        return seeOther(c, "/#schedules");
      } catch (thrown) {
        let text: string;
        if (thrown instanceof ScheduleExistsError) text = `${thrown.message} (names ignore case)`;
        else if (isRefusal(thrown)) text = thrown.message;
        else throw thrown;
        return newJobPage(c, { form: "schedule", message: text, values: form });
      }
    });

    /** The schedule a button names (its target, PROJECT/SCHEDULE), or a refusal. */
    const formSchedule = (form: URLSearchParams) => {
      const [project, id] = targetOf(form);
      const found = isServeName(id) ? schedules.get(id) : undefined;
      if (!found || found.job.project.toLowerCase() !== project.toLowerCase()) {
        throw new ScheduleError(`schedule '${id}' not found in project '${project}'`);
      }
      return found;
    };
    for (const [name, paused] of [["pauseschedule", true], ["resumeschedule", false]] as const) {
      action(name, (form, c) => {
        const found = formSchedule(form);
        schedules.setPaused(found.id, paused);
        log?.info(`dashboard: ${paused ? "paused" : "resumed"} schedule ${found.id}`);
        return seeOther(c, "/#schedules");
      });
    }
    action("delschedule", (form, c) => {
      const found = formSchedule(form);
      schedules.remove(found.id);
      log?.info(`dashboard: deleted schedule ${found.id}`);
      return seeOther(c, "/#schedules");
    });
  };

  return { actions, addRoutes };
}

/** A refused form as the page shows it again: secrets left out (and said so), the message masked as answers are. */
function keptForm(refused: { form: FormKind; message: string; values: URLSearchParams }) {
  const { values, dropped } = keptValues(refused.values);
  const note = dropped.length > 0 ? ` (Not kept, as they hold secrets: ${dropped.join(", ")}. Type them again.)` : "";
  return { form: refused.form, message: maskSecrets(refused.message) + note, values };
}

/** A button's target, PROJECT/NAME, as its two names (empty when it has no slash). */
function targetOf(form: URLSearchParams): [string, string] {
  const target = form.get("target") ?? "";
  const slash = target.indexOf("/");
  return slash < 0 ? ["", ""] : [target.slice(0, slash), target.slice(slash + 1)];
}

/** A job by project and id as a URL or form gives them (ids and projects ignore case); undefined when none. */
function jobNamed(jobs: JobService, project: string, id: string): JobRecord | undefined {
  const job = isServeName(id) ? jobs.get(id.toLowerCase()) : undefined;
  return job && job.project.toLowerCase() === project.toLowerCase() ? job : undefined;
}
