/**
 * `render: "auto"`: which requests go to the browser, decided per kind of page from what rendering changes. The first
 * pages of a kind are rendered and their callback run twice, on the rendered DOM and on the document as the server
 * sent it (render_compare.ts); once `renderAutoSample` of them agree, the kind is fetched over plain HTTP, and one page
 * in 1 / `renderAutoRecheck` of it is rendered and compared again. A kind whose two results ever differ is rendered
 * from then on. Decisions belong to this process (see docs/design/browser.md for why not to Redis).
 */
import { callbackName } from "../spider/callbacks.ts";
import type { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import type { Stats } from "./stats.ts";

/** How an auto request is fetched this time. */
export interface AutoPlan {
  /** Its kind (see pageKind). */
  kind: string;
  /** Whether it goes to the browser. */
  render: boolean;
  /** Whether its callback is also run on the plain document and the two results compared (only when rendered). */
  compare: boolean;
  /**
   * Called once the page is done with, however it ended (compared, failed, retried, abandoned): a sample that ends
   * without a verdict frees its place for another page of the kind. Calling it again does nothing.
   */
  release(): void;
}

/** What a comparison found: the same outputs, different ones (with what differed), or nothing to go by. */
export type Verdict = { same: true } | { same: false; detail: string } | { inconclusive: string };

/** Where a kind stands: still being sampled, rendered for good, or fetched plainly (and re-checked now and then). */
interface KindState {
  state: "sampling" | "render" | "plain";
  /** Samples that agreed so far (sampling). */
  agreed: number;
  /** Pages fetched plainly since the last re-check was planned (plain). */
  sinceCheck: number;
  /** Samples under way (sampling). */
  out: number;
  /** Pages waiting for a sample to end before they are planned (sampling). */
  waiters: Array<() => void>;
}

/** The settings `render: "auto"` reads. */
export interface RenderAutoSettings {
  render: string | null;
  renderAutoSample: number;
  renderAutoRecheck: number;
}

/**
 * A request's kind: who handles it (its rule, else its callback's name), its host, and the shape of its path: the
 * first segment when the path has more than one, then `*` for each further segment (`/product/17` is
 * `/product/*`, `/catalogue/a-book_12/index.html` is `/catalogue/*\/*`, any one-segment path is `/*`, the root `/`).
 * Query strings are left out. `meta.render_kind` (a string) names the kind outright, for sites whose URLs say nothing.
 */
export function pageKind(spider: Spider, request: Request): string {
  const named = request.meta.render_kind;
  if (typeof named === "string" && named !== "") return named;
  let handler: string;
  if (request.rule !== undefined) handler = `rule ${request.rule}`;
  else {
    try {
      handler = callbackName(spider, request.callback) ?? "parse";
    } catch {
      handler = "callback";
    }
  }
  const url = new URL(request.url);
  return `${handler} ${url.host}${pathShape(url.pathname)}`;
}

function pathShape(path: string): string {
  const segments = path.split("/").filter((segment) => segment !== "");
  if (segments.length === 0) return "/";
  if (segments.length === 1) return "/*";
  return `/${segments[0]}${"/*".repeat(segments.length - 1)}`;
}

/** One crawl's auto-rendering decisions: an object per crawl, so two crawls in one process decide apart. */
export class RenderAuto {
  readonly #settings: RenderAutoSettings;
  readonly #spider: Spider;
  readonly #stats: Stats;
  readonly #log: Logger;
  /** Whether a request renders whatever auto would say: its own `render`/`steps` or its host's (Fetchers.renders). */
  readonly #rendersAnyway: (request: Request) => boolean;
  readonly #kinds = new Map<string, KindState>();
  /** Re-check one plain page in this many; 0 for never. */
  readonly #recheckEvery: number;

  constructor(
    settings: RenderAutoSettings,
    spider: Spider,
    stats: Stats,
    log: Logger,
    rendersAnyway: (request: Request) => boolean,
  ) {
    this.#settings = settings;
    this.#spider = spider;
    this.#stats = stats;
    this.#log = log;
    this.#rendersAnyway = rendersAnyway;
    const share = settings.renderAutoRecheck;
    this.#recheckEvery = share > 0 ? Math.max(1, Math.round(1 / share)) : 0;
  }

  /**
   * How to fetch a request, or undefined when it is not auto: `render: true` and steps force the browser, a host
   * whose `hosts` entry renders forces it too, and `render: false` is plain unless the `render` setting is `auto`.
   * While a kind is sampled, only as many of its pages as the sample still needs are out at once: the others wait
   * (a promise) for the verdict, rather than all render while it is not known whether they need to.
   */
  plan(request: Request, signal?: AbortSignal): AutoPlan | undefined | Promise<AutoPlan> {
    // The cheap test first: this runs for every request a crawl downloads, and most crawls never say "auto".
    if (request.render !== "auto" && this.#settings.render !== "auto") return undefined;
    if (this.#rendersAnyway(request)) return undefined;
    const kind = pageKind(this.#spider, request);
    let state = this.#kinds.get(kind);
    if (state === undefined) {
      this.#kinds.set(kind, state = { state: "sampling", agreed: 0, sinceCheck: 0, out: 0, waiters: [] });
    }
    return this.#planKind(kind, state, signal);
  }

  #planKind(kind: string, state: KindState, signal: AbortSignal | undefined): AutoPlan | Promise<AutoPlan> {
    let release = () => {};
    let render = true;
    let compare = false;
    if (state.state === "sampling") {
      if (state.out >= this.#settings.renderAutoSample - state.agreed && !signal?.aborted) {
        return new Promise<void>((resolve) => {
          // The stop's listener goes with the wait, so the crawl's signal does not collect one per page that waited.
          const wake = () => {
            signal?.removeEventListener("abort", wake);
            resolve();
          };
          state.waiters.push(wake);
          signal?.addEventListener("abort", wake, { once: true });
        }).then(() => this.#planKind(kind, state, signal));
      }
      state.out++;
      compare = true;
      let released = false;
      release = () => {
        if (released) return;
        released = true;
        state.out--;
        this.#wake(state);
      };
    } else if (state.state === "plain") {
      compare = this.#recheckEvery > 0 && ++state.sinceCheck >= this.#recheckEvery;
      if (compare) state.sinceCheck = 0;
      render = compare;
    }
    this.#count(kind, render ? "rendered" : "plain");
    return { kind, render, compare, release };
  }

  /** Lets the pages waiting on a kind's sample plan again (the kind was decided, or a sample ended undecided). */
  #wake(state: KindState): void {
    const waiters = state.waiters.splice(0);
    for (const wake of waiters) wake();
  }

  /** Takes a comparison's verdict on a page of `kind` into the kind's decision; logs a line when the decision changes. */
  settle(kind: string, verdict: Verdict, url: string): void {
    const state = this.#kinds.get(kind);
    if (state === undefined) return;
    if ("inconclusive" in verdict) {
      this.#count(kind, "inconclusive");
      this.#log.debug(`render auto: ${kind}: no comparison on ${url} (${verdict.inconclusive})`);
      return;
    }
    this.#count(kind, "compared");
    if (!verdict.same) {
      this.#count(kind, "differed");
      if (state.state === "render") return;
      const was = state.state;
      state.state = "render";
      this.#wake(state);
      this.#stats.inc("render.auto.kinds_rendered");
      if (was === "plain") this.#stats.inc("render.auto.switched_back");
      this.#log.info(
        `render auto: ${kind} renders from now on: ${url} ${
          was === "plain" ? "re-checked" : "sampled"
        } differs with and without the browser (${verdict.detail})`,
      );
      return;
    }
    if (state.state !== "sampling") return;
    state.agreed++;
    if (state.agreed < this.#settings.renderAutoSample) return;
    state.state = "plain";
    this.#wake(state);
    this.#stats.inc("render.auto.kinds_plain");
    const recheck = this.#recheckEvery > 0 ? `re-checking 1 page in ${this.#recheckEvery}` : "never re-checked";
    this.#log.info(
      `render auto: ${kind} goes over plain HTTP from now on: ${state.agreed} sampled pages were the same with and ` +
        `without the browser (${recheck})`,
    );
  }

  /** Counts under `render.auto.NAME` and under the kind's own `render.auto.KIND.NAME`. */
  #count(kind: string, name: string): void {
    this.#stats.inc(`render.auto.${name}`);
    this.#stats.inc(`render.auto.${kind}.${name}`);
  }
}
