/**
 * The HTTP app of `netweir serve`: scrapyd's JSON endpoints (same parameters, same answer fields, node_name and
 * status on every answer), Netweir's jobstats.json, logs and items by Range, and the status page. Every route sits
 * behind {@link security}. Parameters come from the query string and a form body alike, for GET and POST.
 */
import { join } from "node:path";
import { Hono } from "hono";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { maskSecrets } from "../log.ts";
import type { Logger } from "../spider/types.ts";
import { jsonAnswer } from "./answer.ts";
import { fileResponse } from "./file_response.ts";
import { renderJobsPage } from "./jobs_page.ts";
import { renderListing } from "./listing.ts";
import { isServeName, leadsOutOfFolder } from "./names.ts";
import { checkSchedule, isRefusal, optionalName, requiredName, ScheduleError } from "./schedule.ts";
import { listedJobs, scrapydForgets } from "./scrapyd_format.ts";
import { maskStrings } from "./secrets.ts";
import { type BasicAuth, dashboardAllowed, security } from "./security.ts";
import { readJobStats } from "./stats.ts";
import { PAGE_CSP } from "./html.ts";
import { parseListQuery, renderStatusPage } from "./status_page.ts";
import { renderJobPage } from "./job_page.ts";
import { lastLines, readTail } from "./file_tail.ts";
import { addScheduleEndpoints } from "./schedule_routes.ts";
import { withForwardedPrefix } from "./forwarded_prefix.ts";
import { logParserStats } from "./logparser_stats.ts";
import { METRICS_CONTENT_TYPE, renderMetrics } from "./metrics.ts";
import { multipartBoundary, multipartFields, tooManyFields, urlencodedFields } from "./form_fields.ts";
import { runtime } from "../runtime/mod.ts";
import { createDashboard } from "./dashboard_routes.ts";
import { DASHBOARD_CSP } from "./dashboard_pages.ts";
import type { Scheduler } from "./scheduler.ts";
import {
  type CancelSignal,
  JobExistsError,
  type JobRecord,
  type JobService,
  type ProjectRegistry,
  type ServePaths,
} from "./types.ts";

export interface AppOptions {
  jobs: JobService;
  registry: ProjectRegistry;
  paths: ServePaths;
  /** The node_name of every answer (scrapyd: the host name). */
  nodeName: string;
  /** Whether the service listens on a loopback address (Host names are then checked against DNS rebinding). */
  loopback: boolean;
  /** HTTP basic auth, when a username and password are set. */
  auth?: BasicAuth;
  /** Where scheduled and cancelled jobs and internal errors are logged. */
  log?: Logger;
  /** Periodic schedules (addschedule.json and the rest); without it those endpoints are not there. */
  schedules?: Scheduler;
  /** How many alerts wait for their webhook (/metrics); 0 when not given. */
  undeliveredAlerts?: () => number;
}

/** How much of a job's log its page shows (the end of it), and how many of its last items. */
const JOB_PAGE_LOG_BYTES = 16 * 1024;
const JOB_PAGE_ITEMS = 5;

/** Form bodies larger than this are refused: a schedule request is a few lines. */
const MAX_BODY_BYTES = 1024 * 1024;

/** An answer's fields besides node_name and status. */
type Answer = Record<string, unknown>;
type Handler = (params: URLSearchParams, c: Context) => Answer | Promise<Answer>;

/** Why the deploying endpoints answer with an error, one message each. */
const NO_DEPLOYING = "netweir serve does not deploy code over HTTP: put the spider files on this machine as you " +
  "put the rest of your code there, and serve them with --project NAME=PATH";

/** The query string and a form body (urlencoded or multipart) as one list: query first, as scrapyd reads them. */
async function requestParams(request: Request): Promise<URLSearchParams> {
  const query = new URL(request.url).search.slice(1);
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.toLowerCase();
  // Counted before anything is parsed (form_fields.ts): a body cut into tiny fields is the costliest to parse.
  let fields = urlencodedFields(query);
  const refuseIfTooMany = () => {
    const problem = tooManyFields(fields);
    if (problem) throw new ScheduleError(problem);
  };
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const body = await request.text();
    fields += urlencodedFields(body);
    refuseIfTooMany();
    // Parsed as one text, "&" between: appending a 1 MB body's 116,000 pairs one by one took 210 ms.
    return new URLSearchParams(query === "" ? body : body === "" ? query : `${query}&${body}`);
  }
  refuseIfTooMany();
  const params = new URLSearchParams(query);
  if (type.startsWith("multipart/form-data")) {
    const body = new Uint8Array(await request.arrayBuffer());
    const boundary = multipartBoundary(contentType);
    if (boundary !== undefined) fields += multipartFields(body, boundary);
    refuseIfTooMany();
    const form = await new Response(body, { headers: { "content-type": contentType } }).formData().catch(() => {
      throw new ScheduleError("the multipart form body could not be read");
    });
    for (const [name, value] of form) if (typeof value === "string") params.append(name, value);
  }
  return params;
}

/** fileResponse's refusals (no file yet, a range past its end) in the shape of every answer: with node_name. */
async function withNodeName(response: Response, nodeName: string): Promise<Response> {
  const json = (response.headers.get("content-type") ?? "").startsWith("application/json");
  if (response.ok || response.status === 304 || !json) return response;
  const answer = await response.json();
  // Its other headers (Content-Range of a 416) kept; a length would be the old body's.
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== "content-length"));
  return jsonAnswer({ node_name: nodeName, ...answer }, response.status, headers);
}

/** cancel.json's `signal`, as scrapyd takes it: a name with or without SIG, any case, or its number. */
const SIGNALS: Readonly<Record<string, CancelSignal>> = {
  INT: "INT",
  "2": "INT",
  TERM: "TERM",
  "15": "TERM",
  KILL: "KILL",
  "9": "KILL",
};

function cancelSignal(params: URLSearchParams): CancelSignal {
  const given = params.get("signal");
  if (given === null || given === "") return "INT";
  const found = SIGNALS[given.trim().toUpperCase().replace(/^SIG/, "")];
  if (!found) {
    throw new ScheduleError(`'signal' parameter is invalid: ${JSON.stringify(given)} is not INT, TERM or KILL`);
  }
  return found;
}

/**
 * Builds the app.
 *
 * @example
 * const app = createApp({ jobs, registry, paths: servePaths(dir), nodeName: hostname(), loopback: true });
 * listen(app.fetch, { hostname: "127.0.0.1", port: 6800 });
 */
export function createApp(options: AppOptions): Hono {
  const { jobs, registry, paths, nodeName, log } = options;
  const app = new Hono();
  const error = (_c: Context, message: string, status: 200 | 404 | 405 | 413 | 500 = 200, headers = {}) =>
    jsonAnswer({ node_name: nodeName, status: "error", message: maskSecrets(message) }, status, headers);

  app.use("*", security({ loopback: options.loopback, auth: options.auth, nodeName }));
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => error(c, `the request body is larger than ${MAX_BODY_BYTES} bytes`, 413),
    }),
  );

  /**
   * A scrapyd endpoint: its method (GET also answers HEAD), its parameters, its answer or its error. OPTIONS answers
   * 204 with the methods in `Allow`, as scrapyd's endpoints do (a browser's preflight carries an Origin header and
   * never gets this far).
   */
  const endpoint = (name: string, method: "GET" | "POST" | "ANY", handler: Handler) => {
    app.all(`/${name}`, async (c) => {
      const allowed = method === "GET" ? ["GET", "HEAD"] : method === "POST" ? ["POST"] : undefined;
      const allow = [...(allowed ?? ["GET", "HEAD", "POST"]), "OPTIONS"].join(", ");
      if (c.req.method === "OPTIONS") {
        // In scrapyd's words and order (OPTIONS, HEAD, then GET and/or POST), which its own tests compare as text.
        // The ANY endpoints (addversion.json, delversion.json) are POST endpoints in scrapyd, and say so here.
        const scrapydAllow = ["OPTIONS", "HEAD", method === "ANY" ? "POST" : method].join(", ");
        return new Response(null, { status: 204, headers: { Allow: scrapydAllow } });
      }
      if (allowed && !allowed.includes(c.req.method)) {
        return error(c, `${name} takes ${method} requests, not ${c.req.method}`, 405, { Allow: allow });
      }
      try {
        const answer = await handler(await requestParams(c.req.raw), c);
        return jsonAnswer({ node_name: nodeName, status: "ok", ...answer });
      } catch (thrown) {
        if (isRefusal(thrown)) return error(c, thrown.message);
        throw thrown;
      }
    });
  };

  /** The served project a name stands for, or scrapyd's refusal. */
  const projectNamed = (name: string) => {
    const found = registry.get(name);
    if (!found) throw new ScheduleError(`project '${name}' not found`);
    return found;
  };
  const project = (params: URLSearchParams) => projectNamed(requiredName(params, "project"));

  endpoint("daemonstatus.json", "GET", () => {
    const counts = { pending: 0, running: 0, finished: 0 };
    for (const job of jobs.list()) if (!scrapydForgets(job)) counts[job.state]++;
    return counts;
  });

  endpoint("listprojects.json", "GET", () => ({ projects: registry.names() }));

  /**
   * The deploying endpoints refuse a project that leads out of a folder as scrapyd's egg storage does, in its words
   * (scrapyd's own tests compare them); any other malformed name as every other endpoint does.
   */
  const refuseTraversal = (params: URLSearchParams) => {
    const given = params.get("project");
    if (given !== null && leadsOutOfFolder(given)) throw new ScheduleError(`DirectoryTraversalError: ${given}`);
  };
  const deployingProject = (params: URLSearchParams) => {
    refuseTraversal(params);
    return requiredName(params, "project");
  };

  endpoint("listversions.json", "GET", (params) => {
    deployingProject(params);
    return { versions: [] };
  });

  endpoint("listspiders.json", "GET", async (params) => {
    const { spiders, errors } = await registry.spiders(project(params).name);
    const answer: Answer = { spiders: [...new Set(spiders.map((spider) => spider.name))] };
    // The others are still listed; a file that failed to load is named with its error.
    if (errors.length > 0) answer.errors = errors;
    return answer;
  });

  endpoint("schedule.json", "POST", async (params) => {
    const job = await checkSchedule(params, { registry, paths });
    try {
      jobs.schedule(job);
    } catch (thrown) {
      if (thrown instanceof JobExistsError) {
        const existing = jobs.get(job.id)?.id ?? job.id;
        throw new ScheduleError(`job '${existing}' already exists (job ids ignore case)`);
      }
      throw thrown;
    }
    return { jobid: job.id };
  });

  endpoint("cancel.json", "POST", (params) => {
    const { name } = project(params);
    const id = requiredName(params, "job");
    const state = jobs.cancel(name, id, cancelSignal(params));
    // As scrapyd: the state a cancel took the job out of, null when there was nothing to cancel (no such job in
    // the project, or one already finished).
    const prevstate = state === "pending" || state === "running" ? state : null;
    if (prevstate !== null) log?.info(`cancelled job ${id}`, { project: name, prevstate });
    return { prevstate };
  });

  endpoint("listjobs.json", "GET", (params) => {
    const given = optionalName(params, "project");
    return listedJobs(jobs.list(given === undefined ? undefined : projectNamed(given).name));
  });

  /** The job `job` names, within `project` when that is given; undefined when there is none. */
  const jobOf = (params: URLSearchParams): JobRecord | undefined => {
    const id = requiredName(params, "job");
    const given = optionalName(params, "project");
    if (given !== undefined) projectNamed(given);
    const job = jobs.get(id.toLowerCase());
    return job && (given === undefined || given.toLowerCase() === job.project.toLowerCase()) ? job : undefined;
  };

  // scrapyd 1.6's status.json: where a job is; null for one this service has never had or has forgotten, and for one
  // cancelled while it waited (scrapyd forgets those at once).
  endpoint("status.json", "GET", (params) => {
    const job = jobOf(params);
    return { currstate: job === undefined || scrapydForgets(job) ? null : job.state };
  });

  endpoint("jobstats.json", "GET", async (params) => {
    const job = jobOf(params);
    if (!job) throw new ScheduleError(`job '${params.get("job")}' not found`);
    // The series is the job page's chart; jobstats.json gives the numbers, as `netweir crawl` logs them at the end.
    const read = maskStrings(await readJobStats(paths.statsFile(job))) as Record<string, unknown> | null;
    const stats = read && Object.fromEntries(Object.entries(read).filter(([key]) => key !== "series"));
    return { job: job.id, project: job.project, spider: job.spider, state: job.state, outcome: job.outcome, stats };
  });

  if (options.schedules) addScheduleEndpoints(endpoint, options.schedules, { registry, paths }, projectNamed);

  endpoint("delproject.json", "POST", (params) => {
    const { name } = projectNamed(deployingProject(params));
    throw new ScheduleError(
      `delproject.json is not supported: projects are not deployed to netweir serve, so there is nothing to ` +
        `delete; to stop serving ${name}, take its --project option off and restart the service`,
    );
  });

  endpoint("addversion.json", "ANY", (params) => {
    refuseTraversal(params);
    throw new ScheduleError(`addversion.json is not supported: ${NO_DEPLOYING}`);
  });

  endpoint("delversion.json", "ANY", (params) => {
    refuseTraversal(params);
    // There are no versions, so any version named is not found: said in scrapyd's words, which its tests compare.
    const version = params.get("version");
    if (version !== null && version !== "") throw new ScheduleError(`version '${version}' not found`);
    throw new ScheduleError(`delversion.json is not supported: there are no versions or eggs; ${NO_DEPLOYING}`);
  });

  /** The job a log or items URL names, when project, spider and id all match one. */
  const jobAt = (c: Context, extensions: string[]): JobRecord | undefined => {
    const file = c.req.param("file") ?? "";
    const extension = extensions.find((ext) => file.endsWith(ext));
    if (!extension) return undefined;
    const id = file.slice(0, -extension.length);
    if (!isServeName(id)) return undefined;
    const job = jobs.get(id.toLowerCase());
    const sameProject = job?.project.toLowerCase() === c.req.param("project")?.toLowerCase();
    return job && sameProject && job.spider === c.req.param("spider") ? job : undefined;
  };

  // LogParser's stats.json, which ScrapydWeb reads for its Pages and Items columns (logparser_stats.ts).
  app.get("/logs/stats.json", async (c) => c.json(maskStrings(await logParserStats(jobs.list(), paths))));

  app.get("/logs/:project/:spider/:file", async (c) => {
    const job = jobAt(c, [".log"]);
    if (!job) return error(c, "no such log", 404);
    return withNodeName(await fileResponse(paths.logFile(job), c.req.raw, "text/plain; charset=utf-8"), nodeName);
  });

  app.get("/items/:project/:spider/:file", async (c) => {
    const job = jobAt(c, [".jl", ".jsonl"]);
    if (!job) return error(c, "no such items file", 404);
    const items = await fileResponse(paths.itemsFile(job), c.req.raw, "application/x-ndjson; charset=utf-8");
    return withNodeName(items, nodeName);
  });

  /**
   * An HTML page with a CSP: no script, nothing loaded from elsewhere, and no form sent (PAGE_CSP) or sent only to the
   * service itself (the dashboard's pages). Its links carry the X-Forwarded-Prefix of a proxy that serves it at a
   * sub-path, as scrapyd's pages do (forwarded_prefix.ts).
   */
  const page = (c: Context, html: string, csp = PAGE_CSP, status: 200 | 400 | 403 | 404 = 200) =>
    c.html(withForwardedPrefix(html, c.req.header("x-forwarded-prefix")), status, {
      "Content-Security-Policy": csp,
      "Cache-Control": "no-store",
    });
  const dashboard = createDashboard({
    jobs,
    registry,
    paths,
    schedules: options.schedules,
    nodeName,
    log,
    enabled: dashboardAllowed(options),
  });
  dashboard.addRoutes(app, page);

  app.get("/jobs", (c) => page(c, renderJobsPage(jobs.list())));

  // scrapyd's listings of logs and items, down to the files (listing.ts); the files themselves are the routes above.
  for (const [base, root] of [["/logs", join(paths.dir, "logs")], ["/items", join(paths.dir, "items")]]) {
    app.get(base, (c) => c.redirect(`${base}/`, 301));
    const listing = async (c: Context, parts: string[]) => {
      const html = await renderListing(root, base, parts);
      return html === undefined ? error(c, "no such folder", 404) : page(c, html);
    };
    app.get(`${base}/`, (c) => listing(c, []));
    app.get(`${base}/:project/`, (c) => listing(c, [c.req.param("project")]));
    app.get(`${base}/:project/:spider/`, (c) => listing(c, [c.req.param("project"), c.req.param("spider")]));
  }

  /** The stats of the running jobs among `all`, by id. */
  const runningStats = async (all: readonly JobRecord[]) => {
    const stats = new Map<string, Record<string, unknown> | null>();
    await Promise.all(
      all.filter((job) => job.state === "running").map(async (job) => {
        stats.set(job.id, await readJobStats(paths.statsFile(job)));
      }),
    );
    return stats;
  };

  // Prometheus' text format, behind the same login and refusals as everything else.
  app.get("/metrics", async (c) => {
    const all = jobs.list();
    const text = renderMetrics({
      jobs: all,
      stats: await runningStats(all),
      schedules: options.schedules?.list() ?? [],
      jobById: (id) => jobs.get(id),
      memoryRss: runtime.memoryRss(),
      undeliveredAlerts: options.undeliveredAlerts?.() ?? 0,
    });
    return c.body(text, 200, { "Content-Type": METRICS_CONTENT_TYPE, "Cache-Control": "no-store" });
  });

  app.get("/", async (c) => {
    const all = jobs.list();
    const stats = await runningStats(all);
    const query = parseListQuery(new URL(c.req.url).searchParams);
    return page(
      c,
      renderStatusPage({
        nodeName,
        projects: registry.names(),
        jobs: all,
        stats,
        query,
        schedules: options.schedules?.list(),
        actions: dashboard.actions(c),
        undeliveredAlerts: options.undeliveredAlerts?.(),
      }),
      DASHBOARD_CSP,
    );
  });

  app.get("/job/:project/:job", async (c) => {
    const id = c.req.param("job");
    const job = isServeName(id) ? jobs.get(id.toLowerCase()) : undefined;
    if (!job || job.project.toLowerCase() !== c.req.param("project").toLowerCase()) {
      return error(c, "no such job", 404);
    }
    const [stats, logTail, lastItems] = await Promise.all([
      readJobStats(paths.statsFile(job)),
      readTail(paths.logFile(job), JOB_PAGE_LOG_BYTES),
      lastLines(paths.itemsFile(job), JOB_PAGE_ITEMS),
    ]);
    const actions = dashboard.actions(c);
    return page(c, renderJobPage({ nodeName, job, stats, logTail, lastItems, actions }), DASHBOARD_CSP);
  });

  app.notFound((c) => error(c, `no such endpoint: ${new URL(c.req.url).pathname}`, 404));

  app.onError((thrown, c) => {
    const message = maskSecrets(`${thrown.name}: ${thrown.message}`);
    log?.error(`${c.req.method} ${new URL(c.req.url).pathname} failed: ${message}`);
    return error(c, message, 500);
  });

  return app;
}
