/**
 * Stopping a crawl on SIGINT or SIGTERM: the first signal stops it cleanly (downloads end, held requests go back to
 * the frontier, feeds are closed), a second one ends the process at once with the status a shell gives that signal.
 * `netweir crawl` always listens; `runSpider()` only when asked (`stopOnSignals`), since a library that installs
 * process signal handlers of its own accord would take Ctrl-C away from the program that uses it.
 */
import { runtime, type StopSignal } from "../runtime/mod.ts";
import type { Logger } from "../spider/types.ts";
import type { Crawl } from "./crawl.ts";

/** Exit statuses of a process stopped by a signal, as a shell reports them. */
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** The handlers installed by {@link stopOnSignals}. */
export interface SignalStop {
  /** The first signal received, if any. */
  readonly signalled: StopSignal | undefined;
  /** Takes the handlers away again; call it once the crawl has ended. */
  remove(): void;
}

/** Listens for SIGINT and SIGTERM while `crawl` runs (see the module's comment). */
export function stopOnSignals(crawl: Crawl, log: Logger): SignalStop {
  let signalled: StopSignal | undefined;
  const onSignal = (signal: StopSignal) => () => {
    if (signalled) {
      log.warning(`second ${signal}: stopping at once`);
      runtime.exit(SIGNAL_EXIT[signal]);
    }
    signalled = signal;
    crawl.stop("shutdown");
  };
  const removers = (["SIGINT", "SIGTERM"] as const).map((signal) => runtime.onSignal(signal, onSignal(signal)));
  return {
    get signalled() {
      return signalled;
    },
    remove: () => {
      for (const remove of removers) remove();
    },
  };
}
