/** A Node worker thread as the thread that started it sees it (types.ts, WorkerHandle). */
import type { Worker } from "node:worker_threads";
import type { WorkerHandle } from "./types.ts";

/** Wraps `worker`: `onExit` hears once of its death by itself (an error, or its end), never of `terminate`. */
export function nodeWorkerHandle(worker: Worker): WorkerHandle {
  let ended = false;
  let onExit: (error: Error) => void = () => {};
  const end = (error: Error) => {
    if (ended) return;
    ended = true;
    onExit(error);
  };
  worker.on("error", (error) => end(error instanceof Error ? error : new Error(String(error))));
  worker.on("exit", (code) => end(new Error(`the worker ended (exit code ${code})`)));
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (handler) => void worker.on("message", handler),
    onExit: (handler) => onExit = handler,
    terminate: () => {
      ended = true;
      void worker.terminate();
    },
  };
}
