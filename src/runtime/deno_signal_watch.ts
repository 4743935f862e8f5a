/** The Deno side of stop_signal_watch.ts: a Web Worker from the watcher's source, which hears signals itself. */
import { denoWorkerHandle } from "./deno_worker_handle.ts";
import type { WatchHost } from "./stop_signal_watch.ts";
import type { StopSignal, WorkerHandle } from "./types.ts";

/** Deno.addSignalListener works in a worker, on the worker's own event loop, while the main thread is busy. */
const PRELUDE = `
const handlers = {};
const host = {
  listen(signal, handler) {
    handlers[signal] = handler;
    Deno.addSignalListener(signal, handler);
  },
  unlisten(signal) {
    if (handlers[signal]) Deno.removeSignalListener(signal, handlers[signal]);
    delete handlers[signal];
  },
  // With no listener left Deno gives the signal its default action back: it ends the process.
  raise: (signal) => Deno.kill(Deno.pid, signal),
  writeErr: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
  post: (message) => self.postMessage(message),
  onMessage: (handler) => self.onmessage = (event) => handler(event.data),
};
`;

function startWorker(source: string): WorkerHandle {
  const url = URL.createObjectURL(new Blob([source], { type: "application/javascript" }));
  try {
    return denoWorkerHandle(new Worker(url, { type: "module" }));
  } finally {
    URL.revokeObjectURL(url);
  }
}

export const denoWatchHost: WatchHost = {
  prelude: PRELUDE,
  startWorker,
  onSignal(signal: StopSignal, handler: () => void) {
    Deno.addSignalListener(signal, handler);
    return () => Deno.removeSignalListener(signal, handler);
  },
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    Deno.unrefTimer(timer);
    return () => clearInterval(timer);
  },
};
