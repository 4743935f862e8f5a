/**
 * Callback workers (C13): `workers: N` runs callbacks in N workers (src/engine/callback_worker.ts), each with the
 * spider loaded from its file, for spiders whose callbacks are the slow part. The crawl itself (fetching, pipelines,
 * feeds, the frontier) stays in the main thread. Each worker runs one callback at a time (the callbacks that call
 * for workers are the CPU-bound ones, which gain nothing from sharing a thread); pages wait in order for a free
 * worker, which takes all that wait (up to BATCH) in one message, and their items and requests come back one page at a
 * time.
 *
 * A worker that dies (an uncaught error, running out of memory) fails the page it was on, not the crawl: that is an
 * error of its callback, the pages it had not begun wait again, and a new worker takes the dead one's place.
 */
import { extname } from "node:path";
import type { FetchedResponse } from "../spider/response.ts";
import { decodeRequest, encodeRequest, plainRequest, type PlainRequestParts } from "../queue/codec.ts";
import { runtime, type WorkerHandle } from "../runtime/mod.ts";
import { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Item, Logger } from "../spider/types.ts";
import type { FromWorker, SentPage, ToWorker } from "./callback_worker.ts";
import { KEYS_PER_GENERATION } from "./recent_keys.ts";

/** Where the spider the workers load comes from: what `netweir crawl` was given. */
export interface SpiderSource {
  /** The spider's file (a path, or a file: URL). */
  file: string;
  /** `--spider`, when the file has several. */
  spider?: string;
  /** `-a NAME=VALUE` arguments. */
  args: string[];
}

/** What a worker gives back for a page: its items, its requests (see FromWorker), and links of other schemes. */
interface WorkerResult {
  items: Item[];
  requests: Array<string | PlainRequestParts>;
  otherSchemes: string[];
}

interface Task {
  page: SentPage;
  resolve: (result: WorkerResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: WorkerHandle;
  /** Set once the worker has loaded the spider. */
  ready: boolean;
  /** Keys of requests the crawl queued since its last message to this worker (see ToWorker's `run`). */
  queued: string[];
  /** Whether the worker must forget the keys it was told before its next pages (see forgetQueued). */
  forget: boolean;
  /** The worker's count of the pages it has finished (ToWorker's `init`): read if it dies. */
  progress: Int32Array;
  /** Pages whose outcomes have arrived. */
  reported: number;
  /**
   * The pages it was given and has not answered yet, in the order it runs them: the first is the one it is on, so a
   * worker that dies takes only that page, and the others wait again.
   */
  tasks: Task[];
}

/**
 * Pages a worker takes at once at most. Handing over the pages that waited in one message wakes its thread once for
 * all of them; each message woke a sleeping thread, which cost more than running a light callback (docs/design/engine.md,
 * "Callback workers"). A bound, so that a worker that dies does not take many pages' time with it.
 */
const BATCH = 32;

/** The worker module beside this one, with this module's own extension (.ts in the sources, .js in the npm build). */
const WORKER_URL = new URL(`./callback_worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url);

export class WorkerPool {
  readonly #spider: Spider;
  readonly #source: SpiderSource;
  readonly #log: Logger;
  readonly #maxDepth: number | null;
  readonly #slots: Slot[] = [];
  /** Pages waiting for a free worker, oldest first. */
  readonly #waiting: Task[] = [];
  #nextId = 0;
  #closed = false;
  #broken: Error | undefined;
  #onFatal: ((error: Error) => void) | undefined;

  private constructor(spider: Spider, source: SpiderSource, log: Logger, maxDepth: number | null) {
    this.#spider = spider;
    this.#source = source;
    this.#log = log;
    this.#maxDepth = maxDepth;
  }

  /**
   * Starts `count` workers and waits until each has loaded the spider; throws if one cannot. `maxDepth` is the
   * crawl's max_depth (see noteQueued).
   */
  static async start(
    count: number,
    spider: Spider,
    source: SpiderSource,
    log: Logger,
    maxDepth: number | null = null,
  ): Promise<WorkerPool> {
    const pool = new WorkerPool(spider, source, log, maxDepth);
    const loading: Promise<void>[] = [];
    for (let i = 0; i < count; i++) loading.push(pool.#spawn());
    try {
      await Promise.all(loading);
    } catch (error) {
      pool.close();
      throw error;
    }
    return pool;
  }

  /** Starts a worker and resolves once it has loaded the spider (rejects if it cannot). */
  #spawn(): Promise<void> {
    const worker = runtime.startWorker(WORKER_URL);
    const slot: Slot = {
      worker,
      ready: false,
      queued: [],
      forget: false,
      progress: new Int32Array(new SharedArrayBuffer(4)),
      reported: 0,
      tasks: [],
    };
    this.#slots.push(slot);
    let loaded: { resolve: () => void; reject: (error: Error) => void } | undefined;
    const ready = new Promise<void>((resolve, reject) => loaded = { resolve, reject });
    worker.onMessage((data) => {
      const message = data as FromWorker;
      if (message.type === "ready") {
        slot.ready = true;
        loaded?.resolve();
        this.#pump();
      } else if (message.type === "crashed") {
        // The worker caught its own uncaught error (so that the runtime does not print it) and is going away.
        worker.terminate();
        died(new Error(message.message));
      } else if (message.type === "failed") {
        // A worker without a spider is no use: it goes, and the pool is one worker short.
        this.#remove(slot);
        worker.terminate();
        loaded?.reject(new Error(`a callback worker could not load the spider: ${message.message}`));
      } else {
        for (const outcome of message.pages) {
          const task = slot.tasks.shift();
          slot.reported++;
          if (outcome.type === "done") {
            task?.resolve({ items: outcome.items, requests: outcome.requests, otherSchemes: outcome.otherSchemes });
          } else task?.reject(new Error(outcome.message));
        }
        if (slot.tasks.length <= 1) this.#pump();
      }
    });
    const died = (error: Error) => {
      this.#remove(slot);
      if (!slot.ready) {
        loaded?.reject(new Error(`a callback worker failed while loading the spider: ${error.message}`));
        return;
      }
      // Pages it finished whose outcomes never arrived (held for its next message) are run again; the one after them is
      // the page it died on.
      const unreported = Math.max(0, Atomics.load(slot.progress, 0) - slot.reported);
      const finished = slot.tasks.splice(0, unreported);
      const [current, ...notBegun] = slot.tasks.splice(0);
      current?.reject(new Error(`its callback worker died: ${error.message}`));
      const again = [...finished, ...notBegun];
      if (this.#closed) {
        for (const task of again) task.reject(new Error("the callback workers are closed"));
        return;
      }
      // The pages it had not begun (or whose outcomes it lost) go first to whichever worker is free next (the new one,
      // if no other).
      this.#waiting.unshift(...again);
      this.#pump();
      this.#log.warning(`a callback worker died (${error.message}); starting another`);
      this.#spawn().catch((failure) => {
        this.#log.error((failure as Error).message);
        // A worker that cannot even load the spider any more leaves none to run callbacks: the crawl cannot go on.
        if (this.#slots.length === 0) this.#giveUp(failure as Error);
      });
    };
    worker.onExit(died);
    worker.post(
      {
        type: "init",
        file: this.#source.file,
        spider: this.#source.spider,
        args: this.#source.args,
        maxDepth: this.#maxDepth,
        progress: slot.progress,
      } satisfies ToWorker,
    );
    return ready;
  }

  #remove(slot: Slot): void {
    const index = this.#slots.indexOf(slot);
    if (index >= 0) this.#slots.splice(index, 1);
  }

  /** No worker is left and none can be started: every page waiting, and every later one, fails with `error`. */
  #giveUp(error: Error): void {
    this.#broken = error;
    for (const task of this.#waiting.splice(0)) task.reject(error);
    this.#onFatal?.(error);
  }

  /** Called once if the pool can no longer run callbacks (no worker left that can load the spider). */
  onFatal(handler: (error: Error) => void): void {
    this.#onFatal = handler;
  }

  /**
   * Gives waiting pages to the workers that are free or on the last page they were given (see callback_worker.ts,
   * runAll), each as many as wait (up to BATCH) in one message: a worker on its last page finds the next ones waiting
   * when it is done, rather than idle for a message's round trip.
   */
  #pump(): void {
    const free = this.#slots.filter((slot) => slot.ready && slot.tasks.length <= 1);
    // Idle workers first.
    free.sort((a, b) => a.tasks.length - b.tasks.length);
    for (const [index, slot] of free.entries()) {
      if (this.#waiting.length === 0) return;
      // Shared out among the free workers, so that one does not take every page while another sits idle.
      const share = Math.min(BATCH, Math.ceil(this.#waiting.length / (free.length - index)));
      const given = this.#waiting.splice(0, share);
      slot.tasks.push(...given);
      const forget = slot.forget ? { forget: true } : {};
      slot.forget = false;
      slot.worker.post(
        {
          type: "run",
          pages: given.map((task) => task.page),
          queued: slot.queued.splice(0),
          ...forget,
        } satisfies ToWorker,
      );
    }
  }

  /** Runs the callback of `request` on `response` in a worker: its items and requests, as the callback gave them. */
  async run(request: Request, response: FetchedResponse): Promise<Array<Item | Request>> {
    if (this.#closed) throw new Error("the callback workers are closed");
    if (this.#broken) throw this.#broken;
    const page: SentPage = {
      id: this.#nextId++,
      request: encodeRequest(this.#spider, request),
      response: {
        url: response.url,
        status: response.status,
        headers: [...response.headers],
        body: response.body,
        redirects: response.redirects,
        source: response.source,
        protocol: response.protocol,
        rendered: response.rendered,
      },
    };
    const { items, requests, otherSchemes } = await new Promise<WorkerResult>((resolve, reject) => {
      this.#waiting.push({ page, resolve, reject });
      this.#pump();
    });
    return [
      ...items,
      ...requests.map((entry) => typeof entry === "string" ? decodeRequest(this.#spider, entry) : plainRequest(entry)),
      ...otherSchemes.map((url) => new Request({ url })),
    ];
  }

  /**
   * Tells the workers, with their next pages, that the crawl queued a request of this key (see admission.ts,
   * recent_keys.ts): a link of that key they find is dropped there, as the crawl would drop it.
   */
  noteQueued(key: string): void {
    for (const slot of this.#slots) {
      // A worker holds two generations of keys at most: for one stuck on a long callback, older ones are of no use.
      if (slot.queued.length >= 2 * KEYS_PER_GENERATION) slot.queued.splice(0, KEYS_PER_GENERATION);
      slot.queued.push(key);
    }
  }

  /** The workers forget the keys they were told, before their next pages (see Frontier.onForget). */
  forgetQueued(): void {
    for (const slot of this.#slots) {
      slot.queued = [];
      slot.forget = true;
    }
  }

  close(): void {
    this.#closed = true;
    const unanswered = this.#slots.flatMap((slot) => slot.tasks.splice(0));
    for (const slot of this.#slots) slot.worker.terminate();
    for (const task of [...unanswered, ...this.#waiting.splice(0)]) {
      task.reject(new Error("the callback workers are closed"));
    }
  }
}
