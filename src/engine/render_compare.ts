/**
 * The comparison behind `render: "auto"`: a rendered page's callback is run on the rendered DOM and on the document
 * the server sent (which the render fetched anyway, so the comparison costs no request), and the two results are
 * compared: the items as JSON, the requests by method, URL and callback. Only the rendered result goes on to the
 * pipelines and the queue, so the comparison never adds an item or a request.
 */
import { drainCallback } from "../spider/callbacks.ts";
import { Page, RELEASE_DERIVED } from "../spider/page.ts";
import { Request } from "../spider/request.ts";
import type { FetchedResponse } from "../spider/response.ts";
import type { Item } from "../spider/types.ts";
import type { CrawlContext } from "./context.ts";
import type { AutoPlan, Verdict } from "./render_auto.ts";

/** What one run of a callback gave: its outputs in order, and the error it ended with, if any. */
export interface CallbackRun {
  outputs: Array<Item | Request>;
  error: unknown;
}

async function runCallback(ctx: CrawlContext, request: Request, response: FetchedResponse): Promise<CallbackRun> {
  const outputs: Array<Item | Request> = [];
  try {
    if (ctx.workers) outputs.push(...await ctx.workers.run(request, response));
    else {
      const page = new Page(response, request);
      try {
        await drainCallback(ctx.spider, request, page, (output) => {
          outputs.push(output);
          return true;
        });
      } finally {
        page[RELEASE_DERIVED]();
      }
    }
    return { outputs, error: undefined };
  } catch (error) {
    return { outputs, error };
  }
}

/** JSON with every object's keys in order, so two items with the same fields compare equal whatever their order. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, inner) =>
      typeof inner === "object" && inner !== null && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner,
  );
}

function requestKey(request: Request): string {
  const callback = request.callback;
  const handler = request.rule !== undefined
    ? `rule ${request.rule}`
    : typeof callback === "function"
    ? callback.name
    : callback ?? "parse";
  return `${request.method} ${request.url} ${handler}`;
}

/** Where two sorted lists of keys first part, for the log line. */
function firstDifference(what: string, rendered: string[], plain: string[]): string | undefined {
  if (rendered.length !== plain.length) return `${what}: ${rendered.length} rendered, ${plain.length} plain`;
  const at = rendered.findIndex((key, index) => key !== plain[index]);
  if (at < 0) return undefined;
  const shown = rendered[at].length > 100 ? `${rendered[at].slice(0, 97)}...` : rendered[at];
  return `${what} differ: ${shown} is not among the plain page's`;
}

/** Compares two runs of a callback: the same items (as a multiset), the same requests (as a set), the same error. */
export function compareRuns(rendered: CallbackRun, plain: CallbackRun): Verdict {
  const message = (error: unknown) => error === undefined ? undefined : String((error as Error)?.message ?? error);
  if (message(rendered.error) !== message(plain.error)) {
    return {
      same: false,
      detail: plain.error !== undefined
        ? `the callback failed on the plain page: ${message(plain.error)}`
        : `the callback failed on the rendered page: ${message(rendered.error)}`,
    };
  }
  const items = (run: CallbackRun) =>
    run.outputs.filter((output) => !(output instanceof Request)).map(canonical).sort();
  const links = (run: CallbackRun) =>
    [
      ...new Set(run.outputs.filter((output) => output instanceof Request).map(requestKey)),
    ].sort();
  const detail = firstDifference("items", items(rendered), items(plain)) ??
    firstDifference("links", links(rendered), links(plain));
  return detail === undefined ? { same: true } : { same: false, detail };
}

/** The document the server sent, through the spider's response middlewares as a plain page would go; or why not. */
async function plainDocument(ctx: CrawlContext, document: FetchedResponse): Promise<FetchedResponse | string> {
  let response = document;
  for (const middleware of ctx.spider.middlewares) {
    if (!("processResponse" in middleware)) continue;
    const result = await middleware.processResponse(response, ctx.spider);
    if (result instanceof Request) return "a middleware answered the plain document with a request";
    response = result;
  }
  return response;
}

/**
 * The outputs of a rendered page whose kind is being sampled or re-checked: its callback run on both versions, the
 * verdict handed to the crawl's RenderAuto, then the rendered run's outputs (and its error, thrown after them, as
 * the callback itself would have).
 */
export async function* comparedOutputs(
  ctx: CrawlContext,
  plan: AutoPlan,
  request: Request,
  response: FetchedResponse,
): AsyncGenerator<Item | Request> {
  const document = response.rendered?.document;
  // The document stays out of the page the callback sees, and out of what crosses to a callback worker.
  const rendered: FetchedResponse = response.rendered
    ? { ...response, rendered: { ...response.rendered, document: undefined } }
    : response;
  const renderedRun = await runCallback(ctx, request, rendered);
  let verdict: Verdict;
  if (document === undefined) verdict = { inconclusive: "the render kept no document" };
  else if (document.status !== response.status) {
    verdict = { inconclusive: `the document's status ${document.status} is not the page's ${response.status}` };
  } else {
    const plain = await plainDocument(ctx, document);
    verdict = typeof plain === "string"
      ? { inconclusive: plain }
      : compareRuns(renderedRun, await runCallback(ctx, request, plain));
  }
  ctx.renderAuto.settle(plan.kind, verdict, request.url);
  yield* renderedRun.outputs;
  if (renderedRun.error !== undefined) throw renderedRun.error;
}
