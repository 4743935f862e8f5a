/**
 * Callbacks: how a method of the spider becomes a name that travels in a queue, how a name comes back to a method
 * (refusing anything a queued request should not be able to call), and how a callback's result, in whichever
 * style it was written, becomes a stream of items and requests.
 */
import { FetchError } from "../errors.ts";
import { Request } from "./request.ts";
import { Spider, spiderName } from "./spider.ts";
import type { Page } from "./page.ts";
import type { CallbackRef } from "./request.ts";
import type { CallbackResult, Item } from "./types.ts";
import { ruleRequests } from "./rule.ts";

// deno-lint-ignore no-explicit-any
type Method = (this: Spider, ...args: any[]) => unknown;

/** A callback bound to its spider: call it with the page and the request's cbKwargs. */
export type BoundCallback = (page: Page, cbKwargs?: Record<string, unknown>) => CallbackResult;

/** What an errback is given. */
export interface Failure {
  /** What went wrong: a FetchError (with its `reason`), an HttpStatusError, a BlockedError. */
  error: unknown;
  /** The request that failed. */
  request: Request;
  /** A rendered request's tab as it failed: a PNG of its viewport, when one could be taken. */
  screenshot?: Uint8Array;
  /** A rendered request's page as it failed: its HTML (cut at 2,000,000 characters), when it could be read. */
  html?: string;
}

/** Names a queued request may use besides the spider's own methods. */
const SPECIAL_NAMES = ["parse", "onBlock", "on_block", "_sitemap"] as const;

/** The spider's callable methods, worked out once per spider instance. */
interface SpiderMethods {
  byName: Map<string, Method>;
  byFunction: Map<Method, string>;
  bound: Map<string, BoundCallback>;
}

// Keyed by spider instance, so two crawls (two spiders) never see each other's entries.
const methodsCache = new WeakMap<Spider, SpiderMethods>();

/** Names that are never callbacks: constructor, dunders, Object's and Spider's own members (parse aside). */
function reservedName(name: string): boolean {
  return name === "constructor" || name.startsWith("__") || name in Object.prototype ||
    (Object.hasOwn(Spider.prototype, name) && name !== "parse");
}

/** The function a data property of the spider's prototypes holds under `name`, nearest first; never a getter. */
function findMethod(spider: Spider, name: string): Method | undefined {
  for (
    let proto = Object.getPrototypeOf(spider);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return typeof descriptor.value === "function" ? descriptor.value : undefined;
  }
  return undefined;
}

function spiderMethods(spider: Spider): SpiderMethods {
  let methods = methodsCache.get(spider);
  if (methods) return methods;
  const byName = new Map<string, Method>();
  const shadowed = new Set<string>();
  // The spider's own classes: prototypes from the instance's class up to Spider, exclusive.
  for (
    let proto = Object.getPrototypeOf(spider);
    proto && proto !== Spider.prototype && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (shadowed.has(name)) continue;
      shadowed.add(name);
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value;
      if (typeof value === "function" && !reservedName(name)) byName.set(name, value);
    }
  }
  for (const name of SPECIAL_NAMES) {
    const alias = name === "on_block" ? "onBlock" : name === "onBlock" ? "on_block" : undefined;
    const method = findMethod(spider, name) ?? (alias ? findMethod(spider, alias) : undefined);
    if (method) byName.set(name, method);
  }
  const byFunction = new Map<Method, string>();
  for (const [name, method] of byName) if (!byFunction.has(method)) byFunction.set(method, name);
  methods = { byName, byFunction, bound: new Map() };
  methodsCache.set(spider, methods);
  return methods;
}

/**
 * The name a callback travels under: a spider method's name (searched along the prototype chain), a string as
 * given, undefined for none. Anything else (an arrow function, a bound function, Spider's own `closed`) is a
 * TypeError, raised where the request is made rather than when it comes back from a queue.
 */
export function callbackName(spider: Spider, ref: CallbackRef | null | undefined): string | undefined {
  if (ref === undefined || ref === null) return undefined;
  if (typeof ref === "string") return ref;
  const name = typeof ref === "function" ? spiderMethods(spider).byFunction.get(ref as Method) : undefined;
  if (name !== undefined) return name;
  const label = typeof ref === "function" && ref.name ? ` (${ref.name})` : "";
  throw new TypeError(`callback is not a method of the spider${label}`);
}

/** The spider method a callback name stands for, or a TypeError saying why there is none. */
function lookupMethod(spider: Spider, name: string): Method {
  if (typeof name !== "string") throw new TypeError("callback name must be a string");
  const method = spiderMethods(spider).byName.get(name);
  if (method) return method;
  const why = reservedName(name) ? "is reserved" : "is not a method of the spider";
  throw new TypeError(`callback ${JSON.stringify(name)} ${why} (${spiderName(spider)})`);
}

/** The spider's `onBlock` (or `on_block`) method, bound, or undefined when it has none. */
export function blockCallback(spider: Spider): BoundCallback | undefined {
  const byName = spiderMethods(spider).byName;
  const name = byName.has("onBlock") ? "onBlock" : byName.has("on_block") ? "on_block" : undefined;
  return name === undefined ? undefined : resolveCallback(spider, name);
}

/**
 * The spider method a callback name stands for, bound to the spider. Only methods of the spider's own classes
 * (not Spider's, not Object's, no constructor or dunders) plus `parse`, `onBlock`/`on_block` and `_sitemap`: a
 * name from a queue can call nothing else. The same rule applies in-process, so there is no option to tell the two
 * apart: it costs a map lookup, and a spider that works in one process then works with a shared queue.
 */
export function resolveCallback(spider: Spider, name: string): BoundCallback {
  const methods = spiderMethods(spider);
  let bound = methods.bound.get(name);
  if (!bound) {
    const method = lookupMethod(spider, name);
    bound = (page, cbKwargs) => method.call(spider, page, cbKwargs ?? {}) as CallbackResult;
    methods.bound.set(name, bound);
  }
  return bound;
}

function isPlainObject(value: unknown): value is Item {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

function describe(value: unknown): string {
  if (typeof value !== "object") return `a ${typeof value}`;
  if (Array.isArray(value)) return "an array";
  const name = (value as object).constructor?.name;
  return name ? `an instance of ${name}` : "an object";
}

/** One output of a callback: an item or a request, nothing for null/undefined, else a TypeError. */
function checkOutput(value: unknown, label: string): Item | Request | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Request || isPlainObject(value)) return value;
  throw new TypeError(
    `callback ${label} produced ${describe(value)}; callbacks return or yield items (plain objects) and Requests`,
  );
}

/**
 * A callback's result in any style (a value, an array, a sync or async iterable or generator, a promise of any of
 * those) as one stream of items and requests. Promises inside arrays and sync iterables are awaited too.
 */
export async function* normaliseResult(result: unknown, label: string): AsyncGenerator<Item | Request> {
  const value = isThenable(result) ? await result : result;
  if (value === null || value === undefined) return;
  if (typeof value === "object" && !isPlainObject(value) && !(value instanceof Request)) {
    if (Symbol.asyncIterator in value) {
      for await (const out of value as AsyncIterable<unknown>) {
        const checked = checkOutput(out, label);
        if (checked) yield checked;
      }
      return;
    }
    if (Symbol.iterator in value) {
      for (const out of value as Iterable<unknown>) {
        const checked = checkOutput(isThenable(out) ? await out : out, label);
        if (checked) yield checked;
      }
      return;
    }
  }
  const checked = checkOutput(value, label);
  if (checked) yield checked;
}

/** Which function handles a page for this request, and whether the spider's rules follow its links. */
function pickCallback(
  spider: Spider,
  request: Request,
): { method: Method | undefined; label: string; followRules: boolean } {
  if (request.callback !== undefined) {
    const name = callbackName(spider, request.callback)!;
    return { method: lookupMethod(spider, name), label: name, followRules: false };
  }
  if (request.rule !== undefined) {
    const rule = spider.rules[request.rule];
    if (!rule) throw new TypeError(`request names rule ${request.rule}; the spider has ${spider.rules.length}`);
    const callback = rule.callback;
    if (callback === undefined) return { method: undefined, label: `rules[${request.rule}]`, followRules: rule.follow };
    const method = typeof callback === "string" ? lookupMethod(spider, callback) : callback as Method;
    const label = typeof callback === "string" ? callback : callback.name || `rules[${request.rule}].callback`;
    return { method, label, followRules: rule.follow };
  }
  const parse = lookupMethod(spider, "parse");
  if (spider.rules.length > 0 && parse === Spider.prototype.parse) {
    // CrawlSpider: a page reached without a rule (a start URL) follows every rule; parseStartUrl sees it first.
    return { method: findMethod(spider, "parseStartUrl"), label: "parseStartUrl", followRules: true };
  }
  return { method: parse, label: "parse", followRules: false };
}

/**
 * Runs the callback a page is for, with `this` the spider and `(page, cbKwargs)` as arguments, and yields its
 * items and requests; then, for a rule's page whose rule follows (or a CrawlSpider's start page), the requests the
 * rules make from the page.
 */
export async function* runCallback(spider: Spider, request: Request, page: Page): AsyncGenerator<Item | Request> {
  const { method, label, followRules } = pickCallback(spider, request);
  if (method) yield* normaliseResult(method.call(spider, page, request.cbKwargs), label);
  if (followRules) yield* ruleRequests(spider, page);
}

/** Takes a callback's outputs one at a time; false stops the callback (the rest is not asked for). */
export type OutputTaker = (output: Item | Request) => boolean;

/**
 * What runCallback yields, in the same order, handed to `take` without async generators: a callback's sync
 * iterable (a `*parse`, what most spiders write) is walked in a plain loop that awaits only promises it yields,
 * where two async generators cost a few promises per link. False when `take` stopped it.
 *
 * A callback that returns or yields no promise is drained before this returns: the answer is a boolean, not a
 * promise, and a callback's error is thrown, not a rejection. That lets the engine drop what the page parsed (its
 * text and document) at once. Were the drain awaited even then, the pages whose responses came in one turn of the
 * event loop would each run their callback before any of them got to let go of its document (a promise's
 * continuation waits behind the others), and all of them would be alive together: up to 63 at 64 requests at once,
 * which the young generation then copied at every collection (docs/design/engine.md, "Pages let go at once").
 */
export function drainCallback(
  spider: Spider,
  request: Request,
  page: Page,
  take: OutputTaker,
): boolean | Promise<boolean> {
  const { method, label, followRules } = pickCallback(spider, request);
  const rules = (): boolean => {
    if (followRules) { for (const out of ruleRequests(spider, page)) if (!take(out)) return false; }
    return true;
  };
  if (!method) return rules();
  const drained = drainResult(method.call(spider, page, request.cbKwargs), label, take);
  if (typeof drained === "boolean") return drained && rules();
  return drained.then((finished) => finished && rules());
}

/** normaliseResult's outputs handed to `take`; false when `take` stopped it. Synchronous while nothing is a promise. */
function drainResult(result: unknown, label: string, take: OutputTaker): boolean | Promise<boolean> {
  if (isThenable(result)) return Promise.resolve(result).then((value) => drainValue(value, label, take));
  return drainValue(result, label, take);
}

function drainValue(value: unknown, label: string, take: OutputTaker): boolean | Promise<boolean> {
  if (value === null || value === undefined) return true;
  if (typeof value === "object" && !isPlainObject(value) && !(value instanceof Request)) {
    if (Symbol.asyncIterator in value) return drainAsyncIterable(value as AsyncIterable<unknown>, label, take);
    if (Symbol.iterator in value) return drainIterator((value as Iterable<unknown>)[Symbol.iterator](), label, take);
  }
  const checked = checkOutput(value, label);
  return checked ? take(checked) : true;
}

async function drainAsyncIterable(outputs: AsyncIterable<unknown>, label: string, take: OutputTaker): Promise<boolean> {
  for await (const out of outputs) {
    const checked = checkOutput(out, label);
    if (checked && !take(checked)) return false;
  }
  return true;
}

/**
 * A sync iterator's outputs handed to `take`, as a `for...of` would: the iterator is closed (its `return()`, so a
 * generator's `finally` runs) when `take` stops it or an output is refused, and not when `next()` itself throws. On
 * the first promise it yields the rest goes on asynchronously, with the same iterator.
 */
function drainIterator(iterator: Iterator<unknown>, label: string, take: OutputTaker): boolean | Promise<boolean> {
  for (;;) {
    const step = iterator.next();
    if (step.done) return true;
    if (isThenable(step.value)) return drainIteratorAsync(step.value, iterator, label, take);
    if (handOver(step.value, iterator, label, take)) return false;
  }
}

async function drainIteratorAsync(
  first: PromiseLike<unknown>,
  iterator: Iterator<unknown>,
  label: string,
  take: OutputTaker,
): Promise<boolean> {
  let out: unknown = first;
  for (;;) {
    let value: unknown;
    try {
      value = isThenable(out) ? await out : out;
    } catch (error) {
      closeQuietly(iterator);
      throw error;
    }
    if (handOver(value, iterator, label, take)) return false;
    const step = iterator.next();
    if (step.done) return true;
    out = step.value;
  }
}

/**
 * One of an iterator's outputs handed to `take`, as a `for...of` body would: true when `take` stopped the iterator
 * (which is then closed); an output refused closes it too, and throws.
 */
function handOver(output: unknown, iterator: Iterator<unknown>, label: string, take: OutputTaker): boolean {
  let stopped: boolean;
  try {
    const checked = checkOutput(output, label);
    stopped = checked !== undefined && !take(checked);
  } catch (error) {
    closeQuietly(iterator);
    throw error;
  }
  if (stopped) iterator.return?.();
  return stopped;
}

/** Closes an iterator left because of an error; an error of its own closing gives way to that one (as in for...of). */
function closeQuietly(iterator: Iterator<unknown>): void {
  try {
    iterator.return?.();
  } catch {
    // The error that ended the loop is the one to report.
  }
}

/** Runs a request's errback (if it has one) with `{ error, request }`, yielding its items and requests. */
export async function* runErrback(spider: Spider, request: Request, error: unknown): AsyncGenerator<Item | Request> {
  if (request.errback === undefined) return;
  const name = callbackName(spider, request.errback)!;
  const failure: Failure = { error, request };
  if (error instanceof FetchError) {
    if (error.screenshot !== undefined) failure.screenshot = error.screenshot;
    if (error.html !== undefined) failure.html = error.html;
  }
  yield* normaliseResult(lookupMethod(spider, name).call(spider, failure), name);
}

const ATTRIBUTE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

function camelCase(name: string): string {
  return name.replace(/_+([A-Za-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}

/**
 * The rule for `-a NAME=VALUE` (C1): NAME must be an identifier not starting with `_`, and not something a plain
 * Spider has (property or method, in its own spelling or camelCase, so `allowed_domains` is refused). Returns the
 * problem in words, or undefined when the name is fine.
 */
export function spiderAttributeAllowed(name: string): string | undefined {
  if (typeof name !== "string" || !ATTRIBUTE_NAME.test(name)) {
    return `spider argument ${JSON.stringify(name)} must be an identifier (letters, digits, _) starting with a letter`;
  }
  const plain: Spider = new (class extends Spider {})();
  for (const candidate of new Set([name, camelCase(name)])) {
    if (candidate in plain) {
      const what = typeof (plain as unknown as Record<string, unknown>)[candidate] === "function"
        ? "method"
        : "attribute";
      return `spider argument ${name} would replace the Spider ${what} ${candidate}`;
    }
  }
  return undefined;
}
