/**
 * SIGINT and SIGTERM seen from a thread of their own. A signal handler in JavaScript runs on the main thread's event
 * loop, so a callback stuck in synchronous code (a CPU loop, a pathological page for `css()`) kept every signal from
 * being handled: Ctrl-C, a second Ctrl-C and SIGTERM did nothing, and only SIGKILL ended the process.
 *
 * A watcher thread listens instead. It passes each signal on to the main thread, which stops the crawl cleanly when
 * it gets to it, and it ends the process itself, by the signal (the status a shell gives it: 130, 143), when
 *
 * - a second signal comes, busy or not: the promise that a second Ctrl-C stops at once;
 * - after a SIGTERM, the main thread has not run a timer for `stuckMs` (it beats a shared counter every
 *   {@link BEAT_MS}): a supervisor's SIGTERM ends a stuck crawl without the SIGKILL it would otherwise need. A main
 *   thread that still runs (closing feeds, uploading them) is never cut short this way.
 *
 * The thread's code is a string, not a module file, so that it needs nothing from the npm build or the single binary
 * to be found; each runtime gives the few lines that differ (the `host` object: listening, raising, writing). Until the
 * thread listens, and for good when it cannot be started, the main thread listens itself, as it did before.
 */
import { endedLauncher, type Launcher, launchersOf } from "./launchers.ts";
import type { StopSignal, WorkerHandle } from "./types.ts";

/** How often the main thread beats. */
export const BEAT_MS = 250;
/** How often the processes that started the crawl through npm are looked at (launchers.ts). */
export const LAUNCHER_CHECK_MS = 500;

/** What a runtime gives the watcher. */
export interface WatchHost {
  /**
   * Worker code that defines `host`: `listen(signal, handler)`, `unlisten(signal)`, `raise(signal)` (sends the
   * signal to this process), `writeErr(text)`, `post(message)` and `onMessage(handler)`.
   */
  prelude: string;
  /** Starts a worker running `source`, one that does not keep the process alive by itself. */
  startWorker(source: string): WorkerHandle;
  /** A main-thread signal handler; returns its remover. */
  onSignal(signal: StopSignal, handler: () => void): () => void;
  /** Calls `tick` every `ms` without keeping the process alive; returns its stopper. */
  every(ms: number, tick: () => void): () => void;
}

/** What {@link watchStopSignals} is told. */
export interface StopSignalWatchOptions {
  /** Called on the main thread for the first SIGINT or SIGTERM, once the main thread is free to run it. */
  onFirst(signal: StopSignal): void;
  /** How long the main thread may go without a beat after a SIGTERM before the process is ended. */
  stuckMs: number;
  /** Ends the process for a second signal the main thread got itself (no watcher thread): logs, then exits. */
  endAtOnce(signal: StopSignal): void;
  /** Called (before `onFirst("SIGTERM")`) when a process that started the crawl through npm has ended. */
  launcherEnded?(launcher: Launcher): void;
}

/** A running watch. */
export interface StopSignalWatch {
  /**
   * Resolves once the thread listens (or cannot, or has not after {@link READY_WAIT_MS}: then the main thread goes on
   * listening). Wait for it before the work starts: until then the main thread listens too, and a main thread that got
   * busy before it took its handlers away would keep them, and keep the thread's signal from ending the process.
   */
  readonly ready: Promise<void>;
  /** Ends the watch: the watcher thread and the handlers go, and signals have their usual effect again. */
  stop(): void;
}

const SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM"];

/** The longest {@link StopSignalWatch.ready} waits for the thread (a loaded machine starts a Node worker slowly). */
export const READY_WAIT_MS = 10_000;

/** The watcher thread's own code, after the runtime's prelude. Plain JavaScript: it is never compiled. */
const WATCHER = `
let config;
let count = 0;
let ending = false;
host.onMessage((message) => {
  if (message.type === "counted") {
    // The main thread took a SIGTERM of its own (a launcher that ended): a real signal after it is a second one.
    count++;
    if (config) watchMain("SIGTERM");
    return;
  }
  if (message.type !== "start") return;
  config = message;
  count = message.seen;
  for (const signal of ["SIGINT", "SIGTERM"]) host.listen(signal, () => received(signal));
  host.post({ type: "listening" });
});
function received(signal) {
  count++;
  host.post({ type: "signal", signal });
  if (count >= 2) return end(signal, "second " + signal + ": stopping at once");
  if (signal === "SIGTERM") watchMain(signal);
}
function watchMain(signal) {
  const beat = new Int32Array(config.beat);
  let seen = Atomics.load(beat, 0);
  let since = Date.now();
  setInterval(() => {
    const now = Atomics.load(beat, 0);
    if (now !== seen) {
      seen = now;
      since = Date.now();
    } else if (Date.now() - since >= config.stuckMs) {
      end(signal, signal + ": the main thread has run nothing for " + config.stuckMs / 1000 +
        " s (a callback stuck in synchronous code?): stopping at once");
    }
  }, 100);
}
function end(signal, message) {
  if (ending) return;
  ending = true;
  host.writeErr(new Date().toISOString() + " WARNING " + message + "\\n");
  for (const each of ["SIGINT", "SIGTERM"]) host.unlisten(each);
  // Nothing listens now, so the signal ends the process as it would have without us. Should something else of
  // the program listen still, SIGKILL does it.
  host.raise(signal);
  setTimeout(() => host.raise("SIGKILL"), 1000);
}
host.post({ type: "loaded" });
`;

/** Starts watching SIGINT and SIGTERM (see the module's comment). */
export function watchStopSignals(host: WatchHost, options: StopSignalWatchOptions): StopSignalWatch {
  let count = 0;
  let stopped = false;
  const counted = (signal: StopSignal) => {
    if (++count === 1) options.onFirst(signal);
  };
  // The main thread's own handlers: until the thread listens, or when it cannot.
  const onMain = (signal: StopSignal) => () => {
    if (count > 0) options.endAtOnce(signal);
    else counted(signal);
  };
  let mainHandlers: Array<() => void> = [];
  const listenOnMain = () => mainHandlers = SIGNALS.map((signal) => host.onSignal(signal, onMain(signal)));
  const removeMainHandlers = () => {
    for (const remove of mainHandlers) remove();
    mainHandlers = [];
  };
  listenOnMain();
  const beat = new Int32Array(new SharedArrayBuffer(4));
  const stopBeating = host.every(BEAT_MS, () => Atomics.add(beat, 0, 1));
  const ready = Promise.withResolvers<void>();
  const readyTimer = setTimeout(ready.resolve, READY_WAIT_MS);
  void ready.promise.then(() => clearTimeout(readyTimer));
  let worker: WorkerHandle | undefined;
  try {
    worker = host.startWorker(`${host.prelude}\n${WATCHER}`);
  } catch {
    // No thread to be had: the main thread keeps listening, as it always did.
  }
  if (!worker) ready.resolve();
  worker?.onExit(() => {
    // A thread that died takes its handlers with it: the main thread listens again.
    worker = undefined;
    if (!stopped && mainHandlers.length === 0) listenOnMain();
    ready.resolve();
  });
  worker?.onMessage((data) => {
    const message = data as { type: string; signal?: StopSignal };
    if (message.type === "loaded") {
      worker?.post({ type: "start", seen: count, stuckMs: options.stuckMs, beat: beat.buffer });
    } else if (message.type === "listening") {
      // From here the thread hears every signal. One that came in the moment between its start and this removal
      // reaches both and counts once here (the thread's copy comes as a repeat).
      removeMainHandlers();
      ready.resolve();
    } else if (message.type === "signal" && message.signal) {
      // A second one is the thread's to act on: it ends the process itself.
      counted(message.signal);
    }
  });
  // A launcher that ends is taken for a SIGTERM sent to it, once, and only while no signal has come.
  const launchers = launchersOf();
  const stopLauncherWatch = launchers.length === 0 ? () => {} : host.every(LAUNCHER_CHECK_MS, () => {
    if (count > 0) return;
    const ended = endedLauncher(launchers);
    if (!ended) return;
    options.launcherEnded?.(ended);
    counted("SIGTERM");
    worker?.post({ type: "counted" });
  });
  return {
    ready: ready.promise,
    stop() {
      stopped = true;
      ready.resolve();
      stopLauncherWatch();
      stopBeating();
      removeMainHandlers();
      worker?.terminate();
      worker = undefined;
    },
  };
}
