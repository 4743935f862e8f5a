/** A Deno Web Worker as the thread that started it sees it (types.ts, WorkerHandle). */
import type { WorkerHandle } from "./types.ts";

/** Wraps `worker`: `onExit` hears once of an error that ended it, never of `terminate`. */
export function denoWorkerHandle(worker: Worker): WorkerHandle {
  let ended = false;
  let onExit: (error: Error) => void = () => {};
  worker.onerror = (event) => {
    // Handled here: an error left unhandled in a worker would end the whole process.
    event.preventDefault();
    if (ended) return;
    ended = true;
    onExit(new Error(event.message || "the worker failed"));
  };
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (handler) => worker.onmessage = (event) => handler(event.data),
    onExit: (handler) => onExit = handler,
    terminate: () => {
      ended = true;
      worker.terminate();
    },
  };
}
