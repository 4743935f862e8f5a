/**
 * Rendering one request in a tab. The tab's main-frame documents are not fetched by Chromium: each one is paused
 * (the DevTools Fetch domain), fetched by the crawl's own HTTP fetcher, and handed back to the tab. So the main
 * document of a rendered page gets everything a plain request gets — the request's method, body, headers, login,
 * proxy and timeout, the cookie jar, the HTTP cache, the archives — and each document after the first (a redirect,
 * a link a step clicked) is checked against allowed domains and robots.txt like a redirect of a plain request.
 * Redirects are handed to the tab one hop at a time, so it ends up where a browser would, with the right URL.
 *
 * A form a step submits (a POST navigation) is sent by Chromium itself, with the session's cookies, since its
 * body may hold files; it is still checked first. Everything else on the page (scripts, XHR, images) Chromium
 * fetches itself, except what `browser_block` names (resource types, URL globs), which is refused (traffic.ts).
 *
 * Around the page: the `browser_init_script` is added to the tab for this page and taken off after it; the spider's
 * `beforeRender` runs before the page loads and `afterRender` before its HTML is taken (render_hooks.ts); and a render
 * that fails once its page began to load leaves a screenshot and the HTML on its error (failure_snapshot.ts).
 */
import type { FetchedResponse, Rendered } from "../spider/response.ts";
import type { Request } from "../spider/request.ts";
import { FetchError } from "../errors.ts";
import { parseSteps } from "../spider/steps.ts";
import { cookiesFromBrowser, cookiesToBrowser } from "./cookies.ts";
import type { Tab } from "./pool.ts";
import { browserErrorMessage } from "./browser_error.ts";
import { dialogAnswers, runSteps } from "./run_steps.ts";
import { HeaderList } from "../runtime/header_list.ts";
import { type RenderDeps, Traffic } from "./traffic.ts";
import { runRenderHook } from "./render_hooks.ts";
import { snapshotOnto, snapshotWorthy } from "./failure_snapshot.ts";

export { CrawlFailure, type RenderDeps } from "./traffic.ts";

const messageOf = browserErrorMessage;

/**
 * A promise that rejects when `signal` aborts, and the way to stop listening. The signal is the crawl's and lives as
 * long as the crawl: a listener left on it keeps its render's whole state alive (the page's HTML, its Traffic, the
 * document's bytes), which over 1,000 pages was 70 MB of the crawl process.
 */
function abortPromise(signal: AbortSignal): { aborted: Promise<never>; stop(): void } {
  let fail = () => {};
  const aborted = new Promise<never>((_, reject) => {
    fail = () => reject(new FetchError("aborted", "rendering stopped: the crawl is stopping"));
  });
  aborted.catch(() => {});
  if (signal.aborted) fail();
  else signal.addEventListener("abort", fail, { once: true });
  return { aborted, stop: () => signal.removeEventListener("abort", fail) };
}

/** Renders `request` in `tab`: navigates, runs its steps, and returns the page as it then stands. */
export async function renderInTab(
  tab: Tab,
  request: Request,
  deps: RenderDeps,
  seconds: number,
  signal: AbortSignal,
): Promise<FetchedResponse> {
  const abort = abortPromise(signal);
  let initScript: string | undefined;
  const progress = { loading: false };
  try {
    if (deps.initScript !== undefined) {
      // Added for this page only, and removed below, so a tab handed to the next request carries nothing of it.
      const added = await tab.session.send("Page.addScriptToEvaluateOnNewDocument", { source: deps.initScript });
      initScript = added.identifier;
    }
    return await renderUntil(tab, request, deps, seconds, signal, abort.aborted, progress);
  } catch (error) {
    // Taken before the tab is given back: the errback (and the cache directory) get the page as it failed. Not before
    // it began to load: the tab still showed the page of the request before.
    if (progress.loading && !signal.aborted && snapshotWorthy(error)) await snapshotOnto(error, tab);
    throw error;
  } finally {
    abort.stop();
    if (initScript !== undefined) {
      await tab.session.send("Page.removeScriptToEvaluateOnNewDocument", { identifier: initScript }).catch(() => {
        // A script that cannot be taken off would run in the next page: that tab is not reused.
        tab.changedByCall = true;
      });
    }
  }
}

async function renderUntil(
  tab: Tab,
  request: Request,
  deps: RenderDeps,
  seconds: number,
  signal: AbortSignal,
  aborted: Promise<never>,
  progress: { loading: boolean },
): Promise<FetchedResponse> {
  const started = performance.now();
  const deadline = Date.now() + seconds * 1000;
  const steps = parseSteps(request.steps);
  const traffic = new Traffic(tab, request, deps, signal);
  const rendered: Rendered = { evaluated: [], screenshots: [], pdfs: [] };
  tab.listener = traffic;
  // The dialog steps the list starts with apply from the page's load: its scripts may ask at once.
  for (const step of steps) {
    if (step.action !== "dialog") break;
    traffic.dialogs = dialogAnswers(step);
  }
  const page = tab.page;
  if (deps.jar) await cookiesToBrowser(deps.jar, tab.session, request.url);
  await Promise.race([runRenderHook("beforeRender", deps.spider, tab, request, deadline), aborted]);
  progress.loading = true;
  try {
    await Promise.race([page.goto(request.url, { waitUntil: "load", timeout: seconds * 1000 }), aborted]);
  } catch (error) {
    traffic.check();
    if (error instanceof FetchError) throw error;
    const message = messageOf(error);
    if ((error as Error)?.name === "TimeoutError") {
      throw new FetchError("timeout", `${request.url} did not load within ${seconds} s`, { cause: error });
    }
    throw new FetchError("browser", `rendering ${request.url} failed: ${message}`, { cause: error });
  }
  traffic.check();
  await Promise.race([
    runSteps(steps, {
      tab,
      spider: deps.spider,
      uploadDir: deps.uploadDir,
      deadline,
      rendered,
      navigations: () => traffic.documents,
      networkIdle: (idleMs, until) => traffic.networkIdle(idleMs, until),
      answerDialogs: (answer) => traffic.dialogs = answer,
      navigationFailed: traffic.failed,
      checkNavigation: () => traffic.check(),
    }),
    aborted,
  ]);
  // A step may have started a navigation that is still loading: the page is what it shows once loaded.
  if (tab.loading) {
    const left = Math.max(0, deadline - Date.now());
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      tab.loaded(),
      traffic.failed,
      new Promise<void>((resolve) => timer = setTimeout(resolve, left)),
      aborted,
    ]);
    clearTimeout(timer);
  }
  traffic.check();
  await Promise.race([runRenderHook("afterRender", deps.spider, tab, request, deadline), aborted]);
  traffic.check();
  const content = await Promise.race([page.content(), aborted]);
  const url = page.url();
  if (deps.jar) await cookiesFromBrowser(deps.jar, tab.session, [...new Set([request.url, url])]);
  const main = traffic.last;
  const direct = traffic.lastDirect;
  return {
    url,
    status: direct?.status ?? main?.status ?? 200,
    headers: direct?.headers ?? main?.headers ?? new HeaderList({ "content-type": "text/html" }),
    body: new TextEncoder().encode(content),
    request,
    redirects: traffic.redirects,
    latency: (performance.now() - started) / 1000,
    source: "browser",
    sent: main?.sent,
    // render: "auto" compares the callback's results on the DOM and on this document (src/engine/render_compare.ts).
    rendered: request.render === "auto" && main !== undefined ? { ...rendered, document: main } : rendered,
  };
}
