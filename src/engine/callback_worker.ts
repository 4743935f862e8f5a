/**
 * The module a callback worker runs (C13, `workers: N`). It loads the spider file itself, builds the same spider
 * (same class, same `-a` arguments), and runs callbacks on the pages the crawl sends it, sending back their items and
 * their requests. Requests cross in the request codec, so what a callback may yield is what a shared queue carries.
 *
 * Messages in: `init` (file, spider name, arguments), then `run` (pages: each an id, the request as JSON and the
 * response). Out: `ready` or `failed` for `init`, then for each page of a `run`, in order, `done` (id, items, requests)
 * or `error` (id, message). The pages of a `run` are those that waited while the worker was busy: one message, and one
 * wake-up of this thread, for all of them (waking a sleeping thread is what a page's crossing cost most). A request a
 * callback yields crosses in the request codec, or, when it is a plain GET (the usual `page.follow(href)`), as its
 * URL, host, depth and callback name, which the crawl's thread builds a request from without parsing the URL again.
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
import { queueKey } from "./admission.ts";
import { RecentKeys } from "./recent_keys.ts";
import type { Item } from "../spider/types.ts";

/** A response as it crosses to a worker. */
export interface SentResponse {
  url: string;
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array;
  redirects: string[];
  source: FetchedResponse["source"];
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
  }
  | {
    type: "run";
    pages: SentPage[];
    /** Keys (see queueKey) of the requests the crawl queued since its last message to this worker. */
    queued: string[];
  };

export type FromWorker =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | {
    type: "done";
    id: number;
    items: Item[];
    /** Requests in the codec, and plain ones as their parts (plainRequestParts), in the order they were yielded. */
    requests: Array<string | PlainRequestParts>;
    otherSchemes: string[];
  }
  | { type: "error"; id: number; message: string }
  | { type: "crashed"; message: string };

const channel = runtime.workerChannel();
let spider: Spider | undefined;
let maxDepth: number | null = null;
/**
 * What the crawl has queued, as it told this worker: a link found here is dropped before it crosses, as the crawl
 * would drop it on arrival (admission.ts, queuedLately). Most links a page yields are such repeats (27 a page on the
 * link shop, one of them new), and each would cost a structured clone both ways, a Request and a lookup in the
 * crawl's thread, which does the fetching. The crawl's own check stays: this copy lags it by a message.
 */
const queued = new RecentKeys();

async function init(message: Extract<ToWorker, { type: "init" }>): Promise<void> {
  try {
    const Class = pickSpider(await loadSpiders(message.file), message.spider, message.file);
    spider = new Class();
    applySpiderArgs(spider, message.args);
    maxDepth = message.maxDepth;
    channel.post({ type: "ready" } satisfies FromWorker);
  } catch (error) {
    channel.post({ type: "failed", message: (error as Error)?.message ?? String(error) } satisfies FromWorker);
  }
}

/** Runs the pages of a `run` one after the other, reporting each as it ends. */
async function runAll(message: Extract<ToWorker, { type: "run" }>): Promise<void> {
  for (const key of message.queued) queued.add(key);
  for (const page of message.pages) await run(page);
}

async function run(message: SentPage): Promise<void> {
  try {
    const request = decodeRequest(spider!, message.request);
    const response: FetchedResponse = {
      ...message.response,
      headers: new Headers(message.response.headers),
      request,
      latency: 0,
    };
    const items: Item[] = [];
    const requests: Array<string | PlainRequestParts> = [];
    // The codec carries only what a queue can hold (http and https); a `mailto:` a callback followed crosses as its
    // URL alone, for the crawl to drop and count, as it would without workers.
    const otherSchemes: string[] = [];
    // The depth the crawl gives a request this page yields; past max_depth it is refused (and counted) there.
    const mayDrop = maxDepth === null || request.depth + 1 <= maxDepth;
    // drainCallback, not runCallback's async generators: a `*parse` is walked in a plain loop, without a promise per
    // output (27 followed links a page on the link shop).
    await drainCallback(spider!, request, new Page(response, request), (output) => {
      if (!(output instanceof Request)) items.push(output);
      else if (/^https?:/.test(output.url)) {
        if (mayDrop) {
          const key = queueKey(output);
          if (key !== undefined && queued.has(key)) return true;
        }
        requests.push(plainRequestParts(spider!, output) ?? encodeRequest(spider!, output));
      } else otherSchemes.push(output.url);
      return true;
    });
    channel.post({ type: "done", id: message.id, items, requests, otherSchemes } satisfies FromWorker);
  } catch (error) {
    channel.post(
      { type: "error", id: message.id, message: (error as Error)?.message ?? String(error) } satisfies FromWorker,
    );
  }
}

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
  else void runAll(message);
});
