/**
 * Whole requests pushed into a crawl from outside it (`Queue.push` with objects, `netweir queue push --json`):
 * each one is made into a Request, encoded by the codec and decoded again by it, exactly as a crawl process
 * would write and read it, so a pushed request passes the same checks as every queued one (header and method
 * tokens, JSON meta and cbKwargs, size limits, known steps, callback names) before it can reach Redis. Uploads
 * are checked against the upload directory as a crawl checks them when it takes a request.
 *
 * The pusher may not have the spider's code (feeding a crawl from another machine). Then callback names are
 * held to what any spider allows: no dunders, no constructor, nothing of Object's or of Spider's own but `parse`.
 * Whether the spider really has such a method is for the crawl to find, where a request naming none is dropped as
 * queue_bad. Given the spider, the names must be its methods.
 */
import { Request, type RequestInit } from "../spider/request.ts";
import { Spider } from "../spider/spider.ts";
import { calledMethod, parseStep } from "../spider/steps.ts";
import { checkSteps } from "../spider/step_checks.ts";
import { CODEC_FIELDS, decodeRequest, DEFAULT_ENTRY_LIMITS, encodeRequest, type EntryLimits } from "./codec.ts";
import { pushLine } from "./redis_frontier.ts";

/**
 * A request as `Queue.push` and `netweir queue push --json` take it: a RequestInit in plain JSON, its callback and
 * errback by name, without `depth` and `rule` (a pushed request is a start request). `priority` and `dontFilter`
 * default to the push's own.
 */
export type PushedRequest = Omit<RequestInit, "callback" | "errback" | "depth" | "rule"> & {
  /** The name of the spider method that gets the page; `parse` (or the spider's rules) by default. */
  callback?: string;
  /** The name of the spider method that gets the error when the request fails. */
  errback?: string;
};

/** The fields a pushed request may have: the codec's, but for its version and what only a crawl sets. */
const PUSHED_FIELDS: ReadonlySet<string> = new Set(
  [...CODEC_FIELDS].filter((field) => field !== "v" && field !== "depth" && field !== "rule"),
);

/** What pushed requests are checked against. */
export interface PushChecks {
  /** The crawl's spider: callback and `call` step names must be its methods. Without it, see the module's note. */
  spider?: Spider;
  /** Files a `set_input_files` step may upload must be inside it; null (the default) refuses every upload. */
  uploadDir?: string | null;
  /** Bounds on one queued entry (default: the queue_entry_max_* settings' defaults). */
  limits?: EntryLimits;
}

/** The push's own priority and dontFilter, for requests that leave theirs out. */
export interface PushDefaults {
  priority: number;
  dontFilter: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The method names a request mentions: its callback, its errback and its `call` steps'. */
function mentionedNames(data: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const key of ["callback", "errback"]) {
    if (data[key] === undefined) continue;
    if (typeof data[key] !== "string") throw new TypeError(`${key} must be a method's name (a string)`);
    names.push(data[key] as string);
  }
  if (Array.isArray(data.steps)) {
    data.steps.forEach((step, index) => {
      let parsed;
      try {
        parsed = parseStep(step, index);
      } catch {
        return; // the codec says what is wrong with it
      }
      const name = parsed.action === "call" ? calledMethod(parsed.arg) : undefined;
      if (name !== undefined) names.push(name);
    });
  }
  return names;
}

/**
 * A spider that has a method under each of `names` (none under a reserved name, which the codec then refuses as
 * it would from any spider): the stand-in for a spider whose code the pusher does not have.
 */
function standInSpider(names: string[]): Spider {
  // Its name is what a refusal's message names as the spider.
  class Pushed extends Spider {
    override name = "any spider";
  }
  const noop = () => undefined;
  for (const name of names) {
    if (!(name in Pushed.prototype) && !name.startsWith("__")) {
      Object.defineProperty(Pushed.prototype, name, { value: noop, writable: true, configurable: true });
    }
  }
  return new Pushed();
}

/**
 * One pushed request, checked, as its line of a push payload (see pushLine). Throws TypeError with a short reason
 * for anything a crawl would not take: not an object, an unknown field, a bad URL, method, header, meta, step or
 * callback name, an entry over the limits, or an upload the upload directory does not allow.
 */
export async function pushedRequestLine(value: unknown, defaults: PushDefaults, checks: PushChecks): Promise<string> {
  if (!isPlainObject(value)) throw new TypeError("a request must be a JSON object");
  for (const key of Object.keys(value)) {
    if (!PUSHED_FIELDS.has(key)) throw new TypeError(`unknown field ${JSON.stringify(key.slice(0, 40))}`);
  }
  if (typeof value.url !== "string") throw new TypeError("url must be a string");
  const spider = checks.spider ?? standInSpider(mentionedNames(value));
  const limits = checks.limits ?? DEFAULT_ENTRY_LIMITS;
  const init = {
    ...value,
    priority: value.priority ?? defaults.priority,
    dontFilter: value.dontFilter ?? defaults.dontFilter,
  } as PushedRequest;
  // Made, encoded and decoded as a crawl process does it: the codec's checks, one place.
  const encoded = encodeRequest(spider, new Request(init), limits);
  let request: Request;
  try {
    request = decodeRequest(spider, encoded, limits);
  } catch (error) {
    // The decoder speaks of queued entries; this one is not queued yet.
    throw new TypeError((error as Error).message.replace(/^bad queued request: /, ""));
  }
  const refusal = await checkSteps(spider, request.steps, checks.uploadDir ?? null);
  if (refusal) throw new TypeError(refusal.detail);
  return pushLine(request, encoded);
}
