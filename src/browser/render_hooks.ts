/**
 * The spider's render hooks: `beforeRender(page, request)` runs once the tab is the request's and before it loads the
 * page (the place to set a viewport, extra headers, an init script of the request's own); `afterRender(page,
 * request)` runs after the steps, once the page has loaded, and before its HTML is taken, so what it changes in the
 * page is what the callback sees. They run here, on the main thread's spider, with puppeteer's live Page, as `call`
 * steps do, whether or not callbacks run in workers.
 *
 * A hook may change the tab for good (interception, an init script, the viewport), which the next page must not
 * inherit, so a tab a hook had is closed after its request rather than reused, unless the spider says its hooks leave
 * nothing behind (`keepTabsAfterHooks`). What a hook throws fails the request (`browser_hook`, not retried: it is the
 * spider's own code, and would throw again); a hook that outlasts the render's time fails it as a timeout.
 */
import { FetchError } from "../errors.ts";
import type { Request } from "../spider/request.ts";
import { Spider } from "../spider/spider.ts";
import { browserErrorMessage } from "./browser_error.ts";
import type { Tab } from "./pool.ts";

/** The two hooks, by their method names. */
export type RenderHook = "beforeRender" | "afterRender";

/** Whether the spider has its own `hook` (Spider's own does nothing, and is not called). */
export function hasRenderHook(spider: Spider, hook: RenderHook): boolean {
  return typeof spider[hook] === "function" && spider[hook] !== Spider.prototype[hook];
}

/** Runs the spider's `hook`, if it has one, with the tab's page; by `deadline` (epoch ms) at the latest. */
export async function runRenderHook(
  hook: RenderHook,
  spider: Spider,
  tab: Tab,
  request: Request,
  deadline: number,
): Promise<void> {
  if (!hasRenderHook(spider, hook)) return;
  if (spider.keepTabsAfterHooks !== true) tab.changedByCall = true;
  const left = deadline - Date.now();
  if (left <= 0) throw new FetchError("timeout", `${hook} had no time left to run for ${request.url}`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => timer = setTimeout(() => resolve("timeout"), left));
  try {
    const outcome = await Promise.race([Promise.resolve(spider[hook](tab.page, request)), timedOut]);
    if (outcome === "timeout") {
      throw new FetchError("timeout", `${hook} did not finish within the request's timeout (${request.url})`);
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    const what = error instanceof Error ? `${error.name}: ${browserErrorMessage(error)}` : String(error);
    throw new FetchError("browser_hook", `${hook} threw ${what}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
