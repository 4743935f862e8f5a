/**
 * Stopping a crawl on SIGINT or SIGTERM: the first signal stops it cleanly (downloads end, held requests go back to
 * the frontier, feeds are closed), a second one ends the process at once with the status a shell gives that signal,
 * and so does a SIGTERM whose crawl has not run anything for {@link STUCK_MS} (a callback stuck in synchronous code).
 * The signals are heard by a thread of their own (src/runtime/stop_signal_watch.ts), so all of this holds while the
 * main thread is busy. `netweir crawl` always listens; `runSpider()` only when asked (`stopOnSignals`), since a
 * library that installs process signal handlers of its own accord would take Ctrl-C away from the program that uses
 * it.
 */
import { runtime, type StopSignal } from "../runtime/mod.ts";
import type { Logger } from "../spider/types.ts";
import type { Crawl } from "./crawl.ts";

/** Exit statuses of a process stopped by a signal, as a shell reports them. */
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * How long, after a SIGTERM, the main thread may run nothing (not even a timer) before the process is ended. A crawl
 * that is closing its feeds or uploading them runs all along and is never cut short; one whose callback spins in a
 * loop is ended this long after the signal, where only a SIGKILL ended it before.
 */
export const STUCK_MS = 5_000;

/** The handlers installed by {@link stopOnSignals}. */
export interface SignalStop {
  /** The first signal received, if any. */
  readonly signalled: StopSignal | undefined;
  /** Takes the handlers away again; call it once the crawl has ended. */
  remove(): void;
}

/**
 * Listens for SIGINT and SIGTERM while `crawl` runs (see the module's comment). Resolves once the signal thread
 * listens: run the crawl after that, so that its main thread is never busy while it still listens itself.
 */
export async function stopOnSignals(crawl: Crawl, log: Logger): Promise<SignalStop> {
  let signalled: StopSignal | undefined;
  const watch = runtime.watchStopSignals({
    stuckMs: STUCK_MS,
    onFirst(signal) {
      signalled = signal;
      crawl.stop("shutdown");
    },
    launcherEnded(launcher) {
      log.warning(
        `process ${launcher.pid} that started this crawl has ended (${launcher.command}): stopping as for SIGTERM`,
      );
    },
    endAtOnce(signal) {
      log.warning(`second ${signal}: stopping at once`);
      runtime.exit(SIGNAL_EXIT[signal]);
    },
  });
  await watch.ready;
  return {
    get signalled() {
      return signalled;
    },
    remove: () => watch.stop(),
  };
}
