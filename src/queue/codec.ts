/**
 * Requests as JSON, for the checkpoint and the Redis queue. Callbacks travel by name and rules by index; defaults
 * are left out to keep queues small. Decoding trusts nothing: a queue is shared, so every field is checked and a
 * callback name can only reach the methods `resolveCallback` allows. Anything wrong is a TypeError with a short
 * reason (the Redis store counts those as queue_bad).
 */
import {
  KnownUrl,
  PARSED_URL,
  type ParsedRequestInit,
  Request,
  type RequestInit,
  type Step,
} from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import { callbackName, resolveCallback } from "../spider/callbacks.ts";
import { calledMethod, parseStep } from "../spider/steps.ts";
import { findSetting } from "../settings/table.ts";

/** The codec's format version, written as "v". */
export const CODEC_VERSION = 1;

/** How deep meta, cbKwargs and steps may nest (deeper is treated as a cycle or garbage). */
const MAX_DEPTH = 64;

/**
 * Bounds on what one stored request may hold, for the stores whose entries outlive the process that wrote them
 * (the shared queue and the checkpoint): an entry over any of them is refused when written (the request is
 * unqueueable) and when read (the entry is bad), before it can cost more memory than its own size.
 */
export interface EntryLimits {
  /** The encoded entry's size in UTF-8 bytes, at most. */
  maxBytes: number;
  /** How deep its JSON may nest, at most (the request itself is depth 1, its meta's values 2). */
  maxDepth: number;
  /** How many headers it may have, at most. */
  maxHeaders: number;
}

/** The defaults of the queue_entry_max_* settings, from the settings table. */
export const DEFAULT_ENTRY_LIMITS: EntryLimits = {
  maxBytes: findSetting("queueEntryMaxBytes")!.default as number,
  maxDepth: findSetting("queueEntryMaxDepth")!.default as number,
  maxHeaders: findSetting("queueEntryMaxHeaders")!.default as number,
};

/** The size of a string in UTF-8 bytes, without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

/** Whether a text's size in UTF-8 bytes is over `max` (most texts are told by their length alone). */
function overBytes(text: string, max: number): boolean {
  if (text.length > max) return true;
  return text.length * 3 > max && utf8Length(text) > max;
}

/**
 * How deep a JSON text nests, found by counting brackets outside strings, stopping once past `max`: JSON.parse of
 * a text a million brackets deep takes hundreds of megabytes before it could be refused.
 */
function nestsDeeper(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

/** Throws TypeError when an encoded request is over `limits` (for writing: the request cannot be queued). */
function checkEncoded(json: string, headers: number, limits: EntryLimits): void {
  if (headers > limits.maxHeaders) throw new TypeError(`it has ${headers} headers, over ${limits.maxHeaders}`);
  if (overBytes(json, limits.maxBytes)) throw new TypeError(`it takes more than ${limits.maxBytes} bytes encoded`);
  if (nestsDeeper(json, limits.maxDepth)) throw new TypeError(`it nests deeper than ${limits.maxDepth}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Throws TypeError unless `value` survives JSON: null, booleans, finite numbers, strings, arrays and plain objects
 * (whose undefined properties JSON leaves out).
 */
function assertJson(value: unknown, path: string, depth = 0): void {
  if (depth > MAX_DEPTH) throw new TypeError(`${path} nests too deep (or is circular)`);
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is not a finite number`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, `${path}[${i}]`, depth + 1));
    return;
  }
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      // An undefined property is simply left out, as JSON.stringify does; nothing is lost that was there.
      if (value[key] !== undefined) assertJson(value[key], `${path}.${key}`, depth + 1);
    }
    return;
  }
  const what = typeof value === "object" ? (value.constructor?.name ?? "object") : typeof value;
  throw new TypeError(`${path} is not JSON (${what})`);
}

/**
 * A callback's name, checked now against what the decoder accepts, so a request that could not come back from a
 * queue is an error where it is made rather than a bad entry in the queue.
 */
function queueableName(spider: Spider | undefined, ref: Request["callback"]): string | undefined {
  if (ref === undefined || ref === null) return undefined;
  if (spider === undefined) throw new TypeError("a request with a callback or errback needs its spider to be queued");
  const name = callbackName(spider, ref);
  if (name !== undefined) resolveCallback(spider, name);
  return name;
}

/**
 * A request as one line of JSON. Throws TypeError when its callback is not a spider method, its meta is not JSON,
 * or (given `limits`) it is over them.
 */
export function encodeRequest(spider: Spider, request: Request, limits?: EntryLimits): string {
  const json = encode(spider, request);
  if (limits) checkEncoded(json, Object.keys(request.headers).length, limits);
  return json;
}

function encode(spider: Spider | undefined, request: Request): string {
  if (!/^https?:/.test(request.url)) throw new TypeError(`only http(s) requests can be queued: ${request.url}`);
  const out: Record<string, unknown> = { v: CODEC_VERSION, url: request.url };
  if (request.method !== "GET") out.method = request.method;
  if (Object.keys(request.headers).length > 0) out.headers = request.headers;
  if (request.body !== undefined) out.body = request.body;
  const callback = queueableName(spider, request.callback);
  if (callback !== undefined) out.callback = callback;
  const errback = queueableName(spider, request.errback);
  if (errback !== undefined) out.errback = errback;
  if (Object.keys(request.meta).length > 0) {
    assertJson(request.meta, "meta");
    out.meta = request.meta;
  }
  if (Object.keys(request.cbKwargs).length > 0) {
    assertJson(request.cbKwargs, "cbKwargs");
    out.cbKwargs = request.cbKwargs;
  }
  if (request.priority !== 0) out.priority = request.priority;
  if (request.dontFilter) out.dontFilter = true;
  if (request.timeout !== undefined) out.timeout = request.timeout;
  if (!request.allowRedirects) out.allowRedirects = false;
  if (request.auth !== undefined) out.auth = { user: request.auth.user, password: request.auth.password };
  if (request.steps !== undefined) {
    assertJson(request.steps, "steps");
    out.steps = request.steps;
  }
  if (request.render !== false) out.render = request.render;
  if (request.depth !== 0) out.depth = request.depth;
  if (request.rule !== undefined) out.rule = request.rule;
  return JSON.stringify(out);
}

/** A plain request's parts: its URL, its host, its depth, and its callback's name ("" for the spider's `parse`). */
export type PlainRequestParts = [url: string, host: string, depth: number, callback: string];

/**
 * The parts of a request the codec would write as its URL, callback and depth alone (a GET with nothing else, as
 * `page.follow(href)` gives), or undefined for any other. Such a request crosses to another thread as these few
 * values, and {@link plainRequest} builds it again there without parsing its URL. Throws as encodeRequest does when
 * its callback is no method of the spider.
 */
export function plainRequestParts(spider: Spider, request: Request): PlainRequestParts | undefined {
  if (
    request.method !== "GET" || request.body !== undefined || request.errback !== undefined || request.priority !== 0 ||
    request.dontFilter || request.timeout !== undefined || !request.allowRedirects || request.auth !== undefined ||
    request.steps !== undefined || request.render || request.rule !== undefined || !/^https?:/.test(request.url) ||
    hasKeys(request.headers) || hasKeys(request.meta) || hasKeys(request.cbKwargs)
  ) {
    return undefined;
  }
  return [request.url, request.host, request.depth, queueableName(spider, request.callback) ?? ""];
}

/** The request of {@link plainRequestParts}, built again: the same request decodeRequest gives for its entry. */
export function plainRequest([url, host, depth, callback]: PlainRequestParts): Request {
  const known = new KnownUrl(url, host, url.startsWith("https:") ? "https:" : "http:");
  const init: ParsedRequestInit = { url, depth, [PARSED_URL]: known };
  if (callback !== "") init.callback = callback;
  return new Request(init);
}

function hasKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

/**
 * The encoding of a start request (a URL, with a priority and dontFilter at most), exactly as `encodeRequest` writes
 * it, without building a Request: `netweir queue push` encodes millions of them. `href` must be an http(s) URL's
 * `href` (already parsed).
 */
export function encodeStartUrl(href: string, priority: number, dontFilter: boolean): string {
  let json = `{"v":${CODEC_VERSION},"url":${JSON.stringify(href)}`;
  if (priority !== 0) json += `,"priority":${JSON.stringify(priority)}`;
  if (dontFilter) json += `,"dontFilter":true`;
  return json + "}";
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** The fields an encoded request may have. */
export const CODEC_FIELDS: ReadonlySet<string> = new Set([
  "v",
  "url",
  "method",
  "headers",
  "body",
  "callback",
  "errback",
  "meta",
  "cbKwargs",
  "priority",
  "dontFilter",
  "timeout",
  "allowRedirects",
  "auth",
  "steps",
  "render",
  "depth",
  "rule",
]);

function bad(reason: string): never {
  throw new TypeError(`bad queued request: ${reason}`);
}

function optional<T>(
  data: Record<string, unknown>,
  key: string,
  check: (value: unknown) => boolean,
  what: string,
): T | undefined {
  const value = data[key];
  if (value === undefined) return undefined;
  if (!check(value)) bad(`${key} must be ${what}`);
  return value as T;
}

const isString = (v: unknown) => typeof v === "string";
const isBoolean = (v: unknown) => typeof v === "boolean";

function checkHeaders(value: unknown, maxHeaders = Infinity): boolean {
  if (!isPlainObject(value)) return false;
  if (Object.keys(value).length > maxHeaders) return false;
  for (const [name, header] of Object.entries(value)) {
    if (!TOKEN.test(name) || typeof header !== "string" || /[\r\n\0]/.test(header)) return false;
  }
  return true;
}

function checkCallbackName(spider: Spider, data: Record<string, unknown>, key: string): string | undefined {
  const name = optional<string>(data, key, isString, "a string");
  if (name === undefined) return undefined;
  try {
    resolveCallback(spider, name);
  } catch (error) {
    bad(`${key}: ${(error as Error).message}`);
  }
  return name;
}

/**
 * Steps must each name one known action, and a `call` step only a method a callback may name: a queued entry
 * that could run any other method of the spider is not a request Netweir can use.
 */
function checkStepList(spider: Spider, steps: Step[]): void {
  steps.forEach((raw, index) => {
    let step;
    try {
      step = parseStep(raw, index);
    } catch (error) {
      bad(`steps: ${(error as Error).message}`);
    }
    if (step.action !== "call") return;
    const name = calledMethod(step.arg);
    if (name === undefined) bad(`steps: step ${index} is a call step that names no method`);
    try {
      resolveCallback(spider, name);
    } catch (error) {
      bad(`steps: step ${index}: call: ${(error as Error).message}`);
    }
  });
}

/**
 * A request from its JSON. Throws TypeError ("bad queued request: ...") on anything that is not a valid request, or
 * (given `limits`) is over them; the size and depth are checked before the JSON is parsed.
 */
export function decodeRequest(spider: Spider, json: string, limits?: EntryLimits): Request {
  if (typeof json !== "string") bad("not a string");
  if (limits && overBytes(json, limits.maxBytes)) bad(`more than ${limits.maxBytes} bytes`);
  if (limits && nestsDeeper(json, limits.maxDepth)) bad(`nests deeper than ${limits.maxDepth}`);
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    bad("not JSON");
  }
  if (!isPlainObject(data)) bad("not a JSON object");
  if (data.v !== CODEC_VERSION) bad(`unknown version ${JSON.stringify(data.v)}`);
  for (const key of Object.keys(data)) {
    if (!CODEC_FIELDS.has(key)) bad(`unknown field ${JSON.stringify(key.slice(0, 40))}`);
  }

  if (typeof data.url !== "string") bad("url must be a string");
  // Redis hands entries over as UTF-8; bytes that are not UTF-8 arrive as U+FFFD, which no URL Netweir writes holds
  // (it writes URLs percent-encoded). Fetching the mangled URL would be fetching something nobody asked for.
  if (data.url.includes("\uFFFD")) bad("url is not valid UTF-8");
  const url = URL.parse(data.url);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) bad("url must be an http(s) URL");

  const init: RequestInit = { url: url.href };
  init.method = optional<string>(data, "method", (v) => isString(v) && TOKEN.test(v as string), "an HTTP method");
  const maxHeaders = limits?.maxHeaders ?? Infinity;
  init.headers = optional(
    data,
    "headers",
    (value) => checkHeaders(value, maxHeaders),
    maxHeaders === Infinity ? "an object of header strings" : `an object of at most ${maxHeaders} header strings`,
  );
  init.body = optional(data, "body", isString, "a string");
  init.callback = checkCallbackName(spider, data, "callback");
  init.errback = checkCallbackName(spider, data, "errback");
  init.meta = optional(data, "meta", isPlainObject, "an object");
  init.cbKwargs = optional(data, "cbKwargs", isPlainObject, "an object");
  init.priority = optional(data, "priority", Number.isFinite, "a finite number");
  init.dontFilter = optional(data, "dontFilter", isBoolean, "a boolean");
  init.timeout = optional(data, "timeout", (v) => typeof v === "number" && v > 0 && Number.isFinite(v), "seconds > 0");
  init.allowRedirects = optional(data, "allowRedirects", isBoolean, "a boolean");
  init.auth = optional(
    data,
    "auth",
    (v) =>
      isPlainObject(v) && typeof v.user === "string" && typeof v.password === "string" && Object.keys(v).length === 2,
    "{ user, password }",
  );
  init.steps = optional<Step[]>(
    data,
    "steps",
    (v) => Array.isArray(v) && v.every(isPlainObject),
    "an array of objects",
  );
  if (init.steps !== undefined) checkStepList(spider, init.steps);
  init.render = optional(data, "render", (v) => isBoolean(v) || v === "auto", 'true, false or "auto"');
  init.depth = optional(data, "depth", (v) => Number.isSafeInteger(v) && (v as number) >= 0, "an integer >= 0");
  init.rule = optional(
    data,
    "rule",
    (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < spider.rules.length,
    `a rule index below ${spider.rules.length}`,
  );
  return new Request(init);
}
