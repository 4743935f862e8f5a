/**
 * Errors a spider's code leaves uncaught on the main thread (a promise without `await`, a throw in a timer) would
 * end the process with the runtime's stack trace: the JSON feed without its closing `]`, no stats, no `closed()`.
 * A crawl takes them instead, as a callback worker does for the code it runs: each is logged once with the spider,
 * the page and the stack, counted in `errors` and `errors_uncaught`, and the crawl carries on.
 *
 * Only its own: an error whose page scope (page_scope.ts) names this crawl. One that names another crawl is that
 * crawl's, and one that names none is the program's, left to it (and to the runtime, which ends the process when
 * nothing else takes it), unless the crawl owns the process (`netweir crawl`, where the spider is the only code
 * besides Netweir): there it is the spider's too. Deno runs the handler of a throw in a timer outside the timer's
 * async context, so such a throw names no page: in a program that embeds Netweir it is left to the program.
 */
import { runtime } from "../runtime/mod.ts";
import type { Logger } from "../spider/types.ts";
import { currentPage } from "./page_scope.ts";
import type { Stats } from "./stats.ts";

export interface UncaughtTarget {
  /** The crawl, as its page scopes name it. */
  owner: object;
  /** Whether errors no page scope names are this crawl's too (see the module's comment). */
  ownsProcess: boolean;
  spider: string;
  log: Logger;
  stats: Stats;
}

/** Takes uncaught errors for the crawl until the returned function is called. */
export function containUncaught(target: UncaughtTarget): () => void {
  return runtime.onUncaughtError((error, kind) => {
    const page = currentPage();
    if (page ? page.owner !== target.owner : !target.ownsProcess) return false;
    const spider = page?.spider ?? target.spider;
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
