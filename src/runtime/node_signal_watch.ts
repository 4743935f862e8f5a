/**
 * The Node side of stop_signal_watch.ts: a worker thread from the watcher's source. Node delivers no signal to a
 * worker's `process.on`, so the thread listens through the signal handle Node's own `process.on` is built on
 * (`process.binding("signal_wrap")`, a libuv signal watcher on the thread's own loop), the one way a thread other than
 * the main one hears a signal. Should a later Node take it away, the thread reports it and the main thread listens
 * as before.
 */
import { Worker } from "node:worker_threads";
import { nodeWorkerHandle } from "./node_worker_handle.ts";
import type { WatchHost } from "./stop_signal_watch.ts";
import type { StopSignal, WorkerHandle } from "./types.ts";

const PRELUDE = `
const { parentPort } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { constants } = require("node:os");
// process.binding is deprecated (DEP0111) and warns once; the warning says nothing a user of the crawl can act on.
process.noDeprecation = true;
const { Signal } = process.binding("signal_wrap");
const watchers = {};
const host = {
  listen(signal, handler) {
    const watcher = new Signal();
    watcher.onsignal = () => handler();
    const failed = watcher.start(constants.signals[signal]);
    if (failed) throw new Error("cannot listen for " + signal + " (" + failed + ")");
    watchers[signal] = watcher;
  },
  unlisten(signal) {
    // Closing the last watcher of a signal gives it its default action back at once (libuv).
    watchers[signal]?.close();
    delete watchers[signal];
  },
  raise: (signal) => process.kill(process.pid, signal),
  writeErr: (text) => writeSync(2, text),
  post: (message) => parentPort.postMessage(message),
  onMessage: (handler) => parentPort.on("message", handler),
};
`;

function startWorker(source: string): WorkerHandle {
  // Evaluated as a script: nothing to find on disk, in the npm build or the single binary.
  const worker = new Worker(source, { eval: true });
  // The thread must not keep a process alive that has nothing else to do.
  worker.unref();
  return nodeWorkerHandle(worker);
}

export function nodeWatchHost(
  onSignal: (signal: StopSignal, handler: () => void) => () => void,
): WatchHost {
  return {
    prelude: PRELUDE,
    startWorker,
    onSignal,
    every(ms, tick) {
      const timer = setInterval(tick, ms);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
