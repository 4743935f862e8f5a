/**
 * The module a callback worker runs (C13, `workers: N`). It loads the spider file itself, builds the same spider
 * (same class, same `-a` arguments), and runs callbacks on the pages the crawl sends it, sending back their items and
 * their requests. Requests cross in the request codec, so what a callback may yield is what a shared queue carries.
 *
 * Messages in: `init` (file, spider name, arguments), then `run` (pages: each an id, the request as JSON and the
 * response). Out: `ready` or `failed` for `init`, then `results`: the outcomes of a `run`'s pages, in order, each
 * `done` (id, items, requests) or `error` (id, message), all in one message when the run ends (or, before a callback
 * that waits for something, those so far). The pages of a `run` are those that waited while the worker was busy: one
 * message, and one wake-up of each thread, for all of them (waking a sleeping thread is what a page's crossing cost
 * most). A request a callback yields crosses in the request codec, or, when it is a plain GET (the usual
 * `page.follow(href)`), as its URL, host, depth and callback name, which the crawl's thread builds a request from
 * without parsing the URL again; one the crawl has queued lately does not cross at all.
 */
import { loadSpiders, pickSpider } from "../load/spiders.ts";
import type { FetchedResponse } from "../spider/response.ts";
import { decodeRequest, encodeRequest, type PlainRequestParts, plainRequestParts } from "../queue/codec.ts";
import { runtime } from "../runtime/mod.ts";
import { drainCallback } from "../spider/callbacks.ts";
import { Page } from "../spider/page.ts";
import { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import { applySpiderArgs } from "../spider/spider_args.ts";
import { RecentKeys } from "./recent_keys.ts";
import type { Item } from "../spider/types.ts";
import { HeaderList } from "../runtime/header_list.ts";

/** A response as it crosses to a worker. */
export interface SentResponse {
  url: string;
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
  redirects: string[];
  source: FetchedResponse["source"];
  protocol?: string;
  rendered?: FetchedResponse["rendered"];
}

/** One page for a callback: its id, its request in the codec, and the response. */
export interface SentPage {
  id: number;
  request: string;
  response: SentResponse;
}

export type ToWorker =
  | {
    type: "init";
    file: string;
    spider?: string;
    args: string[];
    /** max_depth: a link deeper than this is refused by the crawl, never dropped here as queued already. */
    maxDepth: number | null;
    /**
     * One counter over shared memory: the pages this worker has finished, outcomes held or sent. The crawl reads it only
     * if the worker dies, to know which page it died on (see WorkerPool).
     */
    progress: Int32Array;
  }
  | {
    type: "run";
    pages: SentPage[];
    /** Keys (recent_keys.ts, queueKey) of the requests the crawl queued since its last message to this worker. */
    queued: string[];
    /** Forget the keys told before `queued`: the queue said some of them may not be queued (Frontier.onForget). */
    forget?: boolean;
  };

/** What became of one page: its items and requests, or its callback's error. */
export type PageOutcome =
  | {
    type: "done";
    id: number;
    items: Item[];
    /** Requests in the codec, and plain ones as their parts (plainRequestParts), in the order they were yielded. */
    requests: Array<string | PlainRequestParts>;
    otherSchemes: string[];
  }
  | { type: "error"; id: number; message: string };

export type FromWorker =
  | { type: "ready" }
  | { type: "failed"; message: string }
  /** Outcomes of the pages it was given, in order, from the first not reported yet. */
  | { type: "results"; pages: PageOutcome[] }
  | { type: "crashed"; message: string };

const channel = runtime.workerChannel();
let spider: Spider | undefined;
let progress: Int32Array | undefined;
/**
 * Outcomes not sent yet. They go in one message before a run's last page and when it ends, or before a callback waits
 * for something: a message wakes the crawl's thread, and one per page (several thousand a second) cost that thread
 * more than everything else it did with the page (docs/design/engine.md, "Callback workers").
 */
const held: PageOutcome[] = [];

function sendHeld(): void {
  if (held.length === 0) return;
  const pages = held.splice(0);
  try {
    channel.post({ type: "results", pages } satisfies FromWorker);
  } catch {
    // Something a callback gave cannot be copied to the crawl's thread (a function in an item): each page goes on its
    // own, and the one that gave it fails with the reason, as a callback error.
    for (const page of pages) {
      try {
        channel.post({ type: "results", pages: [page] } satisfies FromWorker);
      } catch (error) {
        const message = `its outputs cannot be sent to the crawl: ${(error as Error)?.message ?? String(error)}`;
        channel.post({ type: "results", pages: [{ type: "error", id: page.id, message }] } satisfies FromWorker);
      }
    }
  }
}

/**
 * What the crawl has queued, as it told this worker: a link found here is dropped before it crosses, as the crawl
 * would drop it on arrival (admission.ts, queuedLately). Most links a page yields are such repeats (27 a page on the
 * link shop, one of them new), and each would cost a structured clone both ways, a Request and a lookup in the
 * crawl's thread, which does the fetching. The crawl's own check stays: this copy lags it by a message.
 */
let queued = new RecentKeys(null);
let maxDepth: number | null = null;

async function init(message: Extract<ToWorker, { type: "init" }>): Promise<void> {
  try {
    const Class = pickSpider(await loadSpiders(message.file), message.spider, message.file);
    spider = new Class();
    applySpiderArgs(spider, message.args);
    maxDepth = message.maxDepth;
    queued = new RecentKeys(maxDepth);
    progress = message.progress;
    channel.post({ type: "ready" } satisfies FromWorker);
  } catch (error) {
    channel.post({ type: "failed", message: (error as Error)?.message ?? String(error) } satisfies FromWorker);
  }
}

/** Runs that have arrived and not begun: the crawl may send the next while this worker is on a run's last page. */
const runs: SentPage[][] = [];
let running = false;

function received(message: Extract<ToWorker, { type: "run" }>): void {
  if (message.forget) queued = new RecentKeys(maxDepth);
  for (const key of message.queued) queued.noteKey(key);
  runs.push(message.pages);
  if (!running) void runInTurn();
}

/** Runs the runs one after the other, in the order they came: the crawl matches outcomes to pages by that order. */
async function runInTurn(): Promise<void> {
  running = true;
  try {
    while (runs.length > 0) await runAll(runs.shift()!);
  } finally {
    running = false;
  }
}

/** Runs the pages of a `run` one after the other, holding each one's outcome (see `held`). */
async function runAll(pages: SentPage[]): Promise<void> {
  const last = pages.length - 1;
  for (const [index, page] of pages.entries()) {
    // Before the last page, what the others gave goes: the crawl hands this worker its next pages while it runs that
    // one, instead of it waiting idle for them once this run is over (about a millisecond a run).
    if (index === last) sendHeld();
    const ran = run(page);
    if (ran !== undefined) await ran;
  }
  sendHeld();
}

/**
 * Runs one page's callback and holds its outcome. Returns a promise only when the callback waits for something, after
 * sending what was held: pages whose callbacks end at once (the usual parse) are not held up behind a slow one.
 */
function run(message: SentPage): Promise<void> | undefined {
  try {
    const request = decodeRequest(spider!, message.request);
    const response: FetchedResponse = {
      ...message.response,
      headers: new HeaderList(message.response.headers),
      request,
      latency: 0,
    };
    const items: Item[] = [];
    const requests: Array<string | PlainRequestParts> = [];
    // The codec carries only what a queue can hold (http and https); a `mailto:` a callback followed crosses as its
    // URL alone, for the crawl to drop and count, as it would without workers.
    const otherSchemes: string[] = [];
    // The depth the crawl gives a request this page yields (see acceptYielded).
    const depth = request.depth + 1;
    // drainCallback, not runCallback's async generators: a `*parse` is walked in a plain loop, without a promise per
    // output (27 followed links a page on the link shop).
    const drained = drainCallback(spider!, request, new Page(response, request), (output) => {
      if (!(output instanceof Request)) items.push(output);
      else if (/^https?:/.test(output.url)) {
        if (queued.has(output, depth)) return true;
        requests.push(plainRequestParts(spider!, output) ?? encodeRequest(spider!, output));
      } else otherSchemes.push(output.url);
      return true;
    });
    const done = () => hold({ type: "done", id: message.id, items, requests, otherSchemes });
    if (typeof drained === "boolean") return void done();
    sendHeld();
    return drained.then(done, (error) => failed(message.id, error));
  } catch (error) {
    failed(message.id, error);
  }
}

function failed(id: number, error: unknown): void {
  hold({ type: "error", id, message: (error as Error)?.message ?? String(error) });
}

function hold(outcome: PageOutcome): void {
  held.push(outcome);
  Atomics.add(progress!, 0, 1);
}

// Code in a callback that ends this worker on purpose: told as a crash, after the outcomes held, or the crawl would wait
// for this worker's pages for ever where the runtime says nothing of the end (Deno).
channel.beforeSelfEnd((how) => {
  sendHeld();
  channel.post({ type: "crashed", message: how } satisfies FromWorker);
});

// An error no callback caught (thrown from a timer, a promise nobody awaited) ends this worker. Where the runtime would
// print it with its stack on the crawl's standard error (Deno does, for workers), it is caught here and reported as a
// crash instead: the crawl logs one line and starts another worker.
const scope = globalThis as unknown as {
  addEventListener?: (type: string, listener: (event: Event & { error?: unknown; reason?: unknown }) => void) => void;
};
if (typeof scope.addEventListener === "function") {
  const crash = (event: Event & { error?: unknown; reason?: unknown }) => {
    event.preventDefault();
    const cause = event.error ?? event.reason;
    // What the pages before this one gave goes first: they ended well, and the crawl blames the first page it has
    // no outcome for.
    sendHeld();
    channel.post(
      { type: "crashed", message: `Uncaught ${(cause as Error)?.message ?? String(cause)}` } satisfies FromWorker,
    );
  };
  scope.addEventListener("error", crash);
  scope.addEventListener("unhandledrejection", crash);
}

channel.onMessage((data) => {
  const message = data as ToWorker;
  if (message.type === "init") void init(message);
  else received(message);
});
