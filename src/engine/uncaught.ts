/**
 * Errors a spider's code leaves uncaught on the main thread (a promise without `await`, a throw in a timer) would
 * end the process with the runtime's stack trace: the JSON feed without its closing `]`, no stats, no `closed()`.
 * A crawl takes them instead, as a callback worker does for the code it runs: each is logged once with the spider,
 * the page (when its scope is known) and the stack, counted in `errors` and `errors_uncaught`, and the crawl
 * carries on.
 */
import { runtime } from "../runtime/mod.ts";
import type { Logger } from "../spider/types.ts";
import { currentPage } from "./page_scope.ts";
import type { Stats } from "./stats.ts";

export interface UncaughtTarget {
  /** The crawl, as its page scopes name it. */
  owner: object;
  spider: string;
  log: Logger;
  stats: Stats;
}

/** Takes uncaught errors for the crawl until the returned function is called. */
export function containUncaught(target: UncaughtTarget): () => void {
  return runtime.onUncaughtError((error, kind) => {
    const page = currentPage();
    // An error of another crawl in the same process is logged under its spider and page, but counted here: the
    // crawl it came from may be over, and an error must never end the process that runs this one.
    const spider = page?.spider ?? target.spider;
    // Deno runs the handler of a throw in a timer outside the timer's async context: the page is not known then.
    const where = page ? ` on ${page.url}` : "";
    const what = kind === "rejection" ? "unhandled rejection" : "uncaught error";
    const message = error instanceof Error ? error.message : String(error);
    target.stats.inc("errors");
    target.stats.inc("errors_uncaught");
    target.log.error(`${what} in spider ${spider}${where}: ${message} (the crawl carries on)`, {
      stack: error instanceof Error ? error.stack : undefined,
    });
    return true;
  });
}
