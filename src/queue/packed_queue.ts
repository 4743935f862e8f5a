/**
 * The memory store's queue, packed: a waiting request is a record of bytes in its priority's buffer, not an
 * object. A Request object with its URL, host and three empty objects (headers, meta, cbKwargs) took about 600
 * bytes of heap per waiting request; a record takes 14 bytes and its URL's (an href is ASCII, one byte a
 * character), and a million of them are a few buffers the garbage collector never has to walk. A request is built
 * again, as `new Request`, when it is taken (from the URL and host it had, without a parse).
 *
 * Only what a record can say exactly is packed: a GET with no headers, body, meta, cbKwargs, auth, steps, timeout,
 * rendering or other option changed from its default, with callbacks among the first 255 the queue has seen. Any
 * other request (and any that is not a plain Request) is kept as it is, as an object the record points to, so
 * nothing is ever lost or changed on the way through.
 *
 * Order is the plain queue's: higher priority first, first in first out within one; a take may pass over requests
 * to hosts the caller has enough of, and those keep their places (see PriorityQueue, whose rules this follows).
 */
import { type CallbackRef, KnownUrl, PARSED_URL, type ParsedRequestInit, Request } from "../spider/request.ts";

/** hostId u32, bits u32, depth-or-object u32, URL length u16. */
const HEADER = 14;
const OBJECT = 1 << 1;
const DONT_FILTER = 1;
/** Callbacks (and errbacks) a queue tells apart by a byte; requests with others are kept as objects. */
const MAX_CALLBACKS = 255;
const MAX_URL = 0xffff;

/**
 * The fields of a Request a record stands for: the URL (and `host`, which the constructor works out from it),
 * the callbacks, depth, rule and dontFilter. The priority is the buffer's. Every other field must have the value
 * a `new Request(url)` gives it, or the request is kept as an object.
 */
const PACKED_FIELDS = new Set(["url", "host", "callback", "errback", "depth", "rule", "dontFilter", "priority"]);
const PLAIN = new Request({ url: "http://plain.invalid/" });
const PLAIN_KEYS = Object.keys(PLAIN);
const EMPTY_OBJECT_FIELDS = new Set(["headers", "meta", "cbKwargs"]);

function isEmpty(record: Record<string, unknown>): boolean {
  for (const _ in record) return false;
  return true;
}

/** Whether every field a record does not stand for has its default value. */
function hasOnlyPackedFields(request: Request): boolean {
  if (Object.getPrototypeOf(request) !== Request.prototype) return false;
  const keys = Object.keys(request);
  if (keys.length !== PLAIN_KEYS.length) return false;
  const fields = request as unknown as Record<string, unknown>;
  const plain = PLAIN as unknown as Record<string, unknown>;
  for (const key of PLAIN_KEYS) {
    if (PACKED_FIELDS.has(key)) continue;
    if (EMPTY_OBJECT_FIELDS.has(key)) {
      if (!isEmpty(fields[key] as Record<string, unknown>)) return false;
    } else if (fields[key] !== plain[key]) return false;
  }
  return true;
}

/** Host names of the waiting requests, each kept once and numbered, and forgotten when none waits. */
class Hosts {
  readonly #ids = new Map<string, number>();
  readonly #names: string[] = [];
  readonly #counts: number[] = [];
  readonly #free: number[] = [];

  hold(host: string): number {
    let id = this.#ids.get(host);
    if (id === undefined) {
      id = this.#free.pop() ?? this.#names.length;
      this.#ids.set(host, id);
      this.#names[id] = host;
      this.#counts[id] = 0;
    }
    this.#counts[id]++;
    return id;
  }

  name(id: number): string {
    return this.#names[id];
  }

  release(id: number): void {
    if (--this.#counts[id] > 0) return;
    this.#ids.delete(this.#names[id]);
    this.#names[id] = "";
    this.#free.push(id);
  }

  /** How many hosts have requests waiting. */
  get size(): number {
    return this.#ids.size;
  }
}

/** Callback references by number; 0 is none. Kept for the queue's life (a spider has a handful). */
class Callbacks {
  readonly #ids = new Map<CallbackRef, number>();
  readonly #refs: (CallbackRef | undefined)[] = [undefined];

  /** The number of a reference, or -1 when the table is full. */
  id(ref: CallbackRef | undefined): number {
    if (ref === undefined) return 0;
    let id = this.#ids.get(ref);
    if (id === undefined) {
      if (this.#refs.length > MAX_CALLBACKS) return -1;
      id = this.#refs.length;
      this.#ids.set(ref, id);
      this.#refs.push(ref);
    }
    return id;
  }

  ref(id: number): CallbackRef | undefined {
    return this.#refs[id];
  }
}

/** What a level needs of the queue to write and read records. */
interface Tables {
  hosts: Hosts;
  callbacks: Callbacks;
  objects: Map<number, Request>;
  nextObject: () => number;
}

/** Bytes of a chunk of records. Fixed-size chunks, not one buffer that doubles: growing copies nothing. */
const CHUNK = 256 * 1024;

/** Records between `head` and `tail` of one buffer. */
class Chunk {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  head = 0;
  tail = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
}

/** One priority's records, in order, in a list of chunks. */
class Level {
  #chunks: Chunk[] = [];
  count = 0;
  readonly #priority: number;
  readonly #tables: Tables;

  constructor(priority: number, tables: Tables) {
    this.#priority = priority;
    this.#tables = tables;
  }

  push(request: Request): void {
    const record = encode(request, this.#tables);
    let last = this.#chunks[this.#chunks.length - 1];
    if (last === undefined || last.tail + record.length > last.bytes.length) {
      last = new Chunk(Math.max(CHUNK, record.length));
      this.#chunks.push(last);
    }
    last.bytes.set(record, last.tail);
    last.tail += record.length;
    this.count++;
  }

  /** Puts a request before every other (a request given back goes first). */
  unshift(request: Request): void {
    const record = encode(request, this.#tables);
    let first = this.#chunks[0];
    if (first === undefined || first.head < record.length) {
      first = new Chunk(record.length);
      first.head = first.tail = record.length;
      this.#chunks.unshift(first);
    }
    first.head -= record.length;
    first.bytes.set(record, first.head);
    this.count++;
  }

  /**
   * Takes up to `max` requests, in order, from among the first `window`, leaving those whose host `skip` says to
   * leave where they were, in their order: the records left go into a chunk of their own put where the scan ended,
   * so the rest of the queue is not touched.
   */
  take(max: number, skip: ((host: string) => boolean) | undefined, window: number, taken: Request[]): void {
    const hosts = this.#tables.hosts;
    const left: Uint8Array[] = [];
    let leftBytes = 0;
    let looked = 0;
    let took = 0;
    let index = 0;
    for (; index < this.#chunks.length && looked < window && took < max; index++) {
      const chunk = this.#chunks[index];
      const view = chunk.view;
      while (chunk.head < chunk.tail && looked < window && took < max) {
        const start = chunk.head;
        const size = HEADER + view.getUint16(start + 12);
        if (skip !== undefined && skip(hosts.name(view.getUint32(start)))) {
          left.push(chunk.bytes.subarray(start, start + size));
          leftBytes += size;
        } else {
          taken.push(this.#decode(chunk, start));
          took++;
        }
        chunk.head += size;
        looked++;
      }
      if (chunk.head < chunk.tail) break;
    }
    // Chunks the scan went through are done with; the one it stopped in keeps what it did not reach.
    this.#chunks.splice(0, Math.min(index, this.#chunks.length));
    if (left.length > 0) {
      const back = new Chunk(leftBytes);
      for (const record of left) {
        back.bytes.set(record, back.tail);
        back.tail += record.length;
      }
      this.#chunks.unshift(back);
    }
    this.count -= took;
  }

  #decode(chunk: Chunk, position: number): Request {
    const view = chunk.view;
    const { hosts, callbacks, objects } = this.#tables;
    const hostId = view.getUint32(position);
    const host = hosts.name(hostId);
    hosts.release(hostId);
    const bits = view.getUint32(position + 4);
    const extra = view.getUint32(position + 8);
    if (bits & OBJECT) {
      const request = objects.get(extra)!;
      objects.delete(extra);
      return request;
    }
    const length = view.getUint16(position + 12);
    const url = latin1(chunk.bytes, position + HEADER, length);
    const rule = (bits >>> 24) - 1;
    // The URL and host are those a Request's parse wrote: the request is built without parsing them again.
    const known = new KnownUrl(url, host, url.slice(0, url.indexOf(":") + 1));
    const init: ParsedRequestInit = {
      url,
      callback: callbacks.ref((bits >>> 8) & 0xff),
      errback: callbacks.ref((bits >>> 16) & 0xff),
      depth: extra,
      rule: rule < 0 ? undefined : rule,
      dontFilter: (bits & DONT_FILTER) !== 0,
      priority: this.#priority,
      [PARSED_URL]: known,
    };
    return new Request(init);
  }
}

const decoder = new TextDecoder("latin1");

function latin1(bytes: Uint8Array, start: number, length: number): string {
  const slice = bytes.subarray(start, start + length);
  // fromCharCode takes its arguments on the stack: short URLs (nearly all) go that way, long ones through a decoder.
  return length <= 2048 ? String.fromCharCode.apply(null, slice as unknown as number[]) : decoder.decode(slice);
}

let scratch = new Uint8Array(1024);
let scratchView = new DataView(scratch.buffer);

/** A request's record, in a scratch buffer reused from call to call. */
function encode(request: Request, tables: Tables): Uint8Array {
  const host = tables.hosts.hold(request.host);
  const url = request.url;
  const rule = request.rule ?? -1;
  let packable = url.length <= MAX_URL && rule < 254 && Number.isInteger(request.depth) && request.depth >= 0 &&
    request.depth <= 0xffffffff && hasOnlyPackedFields(request);
  // Callbacks are numbered only for requests that are packed: a spider that makes a closure for every request
  // (and so cannot be packed) does not fill the table, nor keep its first closures alive.
  const callback = packable ? tables.callbacks.id(request.callback) : -1;
  const errback = packable ? tables.callbacks.id(request.errback) : -1;
  packable &&= callback >= 0 && errback >= 0;
  if (scratch.length < HEADER + url.length) {
    scratch = new Uint8Array((HEADER + url.length) * 2);
    scratchView = new DataView(scratch.buffer);
  }
  const bytes = scratch;
  // Every character of an href is ASCII; should one not be, the request goes as an object.
  for (let i = 0; packable && i < url.length; i++) {
    const code = url.charCodeAt(i);
    if (code > 0x7f) packable = false;
    bytes[HEADER + i] = code;
  }
  const view = scratchView;
  view.setUint32(0, host);
  if (packable) {
    view.setUint32(4, (request.dontFilter ? DONT_FILTER : 0) | (callback << 8) | (errback << 16) | ((rule + 1) << 24));
    view.setUint32(8, request.depth);
    view.setUint16(12, url.length);
    return bytes.subarray(0, HEADER + url.length);
  }
  const id = tables.nextObject();
  tables.objects.set(id, request);
  view.setUint32(4, OBJECT);
  view.setUint32(8, id);
  view.setUint16(12, 0);
  return bytes.subarray(0, HEADER);
}

/** Waiting requests by priority, packed. */
export class PackedQueue {
  readonly #levels = new Map<number, Level>();
  /** Priorities that have requests, highest first. */
  #order: number[] = [];
  #size = 0;
  #objectId = 0;
  readonly #tables: Tables = {
    hosts: new Hosts(),
    callbacks: new Callbacks(),
    objects: new Map(),
    // Ids of objects waiting at once never come near 2^32; they wrap around rather than grow for ever.
    nextObject: () => this.#objectId = (this.#objectId + 1) >>> 0,
  };

  get size(): number {
    return this.#size;
  }

  /** How many waiting requests are kept as objects rather than records (for tests and benches). */
  get objects(): number {
    return this.#tables.objects.size;
  }

  /** How many hosts have requests waiting. */
  get hosts(): number {
    return this.#tables.hosts.size;
  }

  #level(priority: number): Level {
    let level = this.#levels.get(priority);
    if (!level) {
      level = new Level(priority, this.#tables);
      this.#levels.set(priority, level);
      this.#order.push(priority);
      this.#order.sort((a, b) => b - a);
    }
    return level;
  }

  push(request: Request): void {
    this.#level(request.priority).push(request);
    this.#size++;
  }

  /** Puts a request back at the front of its priority. */
  unshift(request: Request): void {
    this.#level(request.priority).unshift(request);
    this.#size++;
  }

  /**
   * Takes up to `max` requests, highest priority first and in order within one, passing over those to hosts
   * `skipHost` says to leave (they keep their place). At most `window` requests of each priority are looked at.
   */
  take(max: number, skipHost: ((host: string) => boolean) | undefined, window: number): Request[] {
    const taken: Request[] = [];
    for (let index = 0; index < this.#order.length && taken.length < max; index++) {
      this.#levels.get(this.#order[index])!.take(max - taken.length, skipHost, window, taken);
    }
    this.#size -= taken.length;
    if (taken.length > 0) {
      this.#order = this.#order.filter((priority) => {
        if (this.#levels.get(priority)!.count > 0) return true;
        this.#levels.delete(priority);
        return false;
      });
    }
    return taken;
  }
}
