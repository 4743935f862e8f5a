/**
 * An HTTP/1.1 client over plain sockets, with keep-alive connections pooled per origin: crawls on both runtimes go
 * through it for every request not sent through a proxy. Deno's fetch runs each request through hyper, web streams
 * and webidl, and at 64 requests in flight it held some 60 MB more than this client for the same pages and took three
 * times the CPU; on Node this client took about half the CPU of node:http (docs/design/engine.md, "The HTTP
 * client"). The crawler reads every body whole and decodes it itself (src/fetch/body.ts), so a client that hands
 * over the bytes as sent is all it needs.
 *
 * What a connection may be used for again: a response read to its framed end, from a server that did not say
 * `Connection: close`, with no stray bytes after it. A request on a reused connection that the server had closed
 * while it sat idle (the usual race of keep-alive) is sent again once on a new one, if nothing of an answer came
 * and its method is idempotent. Idle connections are closed after IDLE_MS, before most servers' own timeouts.
 */
import type { HttpClient, HttpRequest, HttpResponse } from "../types.ts";
import { type Framing, framingOf, ReadBuffers, type ResponseHead, Wire, type WireSocket } from "./wire.ts";

/** Opens a connection to a URL's host and port (TLS for https:). */
export type Dial = (url: URL) => Promise<WireSocket>;

export interface WireClientOptions {
  dial: Dial;
  /** Keeps the idle sweep's timer from holding the process open (Deno.unrefTimer, a Node timer's unref). */
  unrefTimer?: (timer: ReturnType<typeof setInterval>) => void;
  /** How long an idle connection is kept; IDLE_MS by default. */
  idleMs?: number;
  /** How many idle connections are kept in all; MAX_IDLE by default. */
  maxIdle?: number;
}

/** Below the 5 s keep-alive timeout many servers use (Apache's default), so a kept connection is seldom a dead one. */
export const IDLE_MS = 4_000;
/** Idle connections kept per origin; more are closed as they come back. */
const MAX_IDLE_PER_ORIGIN = 256;
/**
 * Idle connections kept in all: a crawl over many hosts would otherwise hold one socket for each host of the last
 * IDLE_MS, against the process's limit of open files.
 */
export const MAX_IDLE = 2048;
/** Methods that may be sent twice: the one sent on a connection the server had closed never reached it. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);
/** Methods whose requests carry a body, so an empty one is still announced with a length. */
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

const encoder = new TextEncoder();

interface Idle {
  wire: Wire;
  since: number;
}

/** The request's head and body as bytes: the head in Latin-1, as header values are bytes. */
function encodeRequest(url: URL, init: HttpRequest): Uint8Array {
  const body = init.body === undefined ? undefined : encoder.encode(init.body);
  let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  if (!init.headers.has("host")) head += `host: ${url.host}\r\n`;
  init.headers.forEach((value, name) => head += `${name}: ${value}\r\n`);
  if (!init.headers.has("content-length")) {
    if (body !== undefined) head += `content-length: ${body.length}\r\n`;
    else if (WITH_BODY.has(init.method)) head += "content-length: 0\r\n";
  }
  head += "\r\n";
  const headBytes = latin1Bytes(head);
  if (body === undefined || body.length === 0) return headBytes;
  const whole = new Uint8Array(headBytes.length + body.length);
  whole.set(headBytes);
  whole.set(body, headBytes.length);
  return whole;
}

function latin1Bytes(text: string): Uint8Array {
  // deno-lint-ignore no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return encoder.encode(text);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** Waits for a connection, giving up (and closing it when it comes) if the request is aborted first. */
function connect(dial: Dial, url: URL, signal: AbortSignal | undefined, buffers: ReadBuffers): Promise<Wire> {
  const dialing = dial(url);
  if (!signal) return dialing.then((socket) => new Wire(socket, buffers));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      dialing.then((socket) => socket.close(), () => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    dialing.then((socket) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) socket.close();
      else resolve(new Wire(socket, buffers));
    }, (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(error);
    });
  });
}

/** A client over `options.dial`'s sockets. */
export function wireHttpClient(options: WireClientOptions): HttpClient {
  const idleMs = options.idleMs ?? IDLE_MS;
  const maxIdle = options.maxIdle ?? MAX_IDLE;
  const idle = new Map<string, Idle[]>();
  const buffers = new ReadBuffers();
  const busy = new Set<Wire>();
  let idleCount = 0;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const drop = (wire: Wire) => {
    busy.delete(wire);
    try {
      wire.socket.close();
    } catch {
      // Closed already (an abort, or the server).
    }
  };

  const sweep = () => {
    const now = Date.now();
    for (const [key, list] of idle) {
      const keep: Idle[] = [];
      for (const entry of list) {
        if (now - entry.since < idleMs) keep.push(entry);
        else drop(entry.wire);
      }
      idleCount -= list.length - keep.length;
      if (keep.length === 0) idle.delete(key);
      else idle.set(key, keep);
    }
    if (idleCount === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  const take = (key: string): Wire | undefined => {
    const list = idle.get(key);
    while (list !== undefined && list.length > 0) {
      // The most recently used first: the likeliest to be still open, and warm.
      const entry = list.pop()!;
      idleCount--;
      if (list.length === 0) idle.delete(key);
      if (Date.now() - entry.since < idleMs) return entry.wire;
      drop(entry.wire);
    }
    return undefined;
  };

  const putBack = (key: string, wire: Wire) => {
    busy.delete(wire);
    if (closed) return drop(wire);
    // The origin goes to the end of the map's order, so that the first origin in it is the one whose connections have
    // been idle the longest (a finished host's, in a broad crawl), and the bound below closes those first.
    let list = idle.get(key);
    if (list === undefined) list = [];
    else idle.delete(key);
    idle.set(key, list);
    wire.release();
    list.push({ wire, since: Date.now() });
    idleCount++;
    if (list.length > MAX_IDLE_PER_ORIGIN) {
      drop(list.shift()!.wire);
      idleCount--;
    }
    if (idleCount > maxIdle) {
      // The origin first in the map is the one put back to least recently: its oldest connection goes.
      const [oldestKey, oldest] = idle.entries().next().value!;
      drop(oldest.shift()!.wire);
      idleCount--;
      if (oldest.length === 0) idle.delete(oldestKey);
    }
    if (sweeper === undefined) {
      sweeper = setInterval(sweep, idleMs);
      options.unrefTimer?.(sweeper);
    }
  };

  const respond = (
    key: string,
    wire: Wire,
    { status, headers, keepAlive, version }: ResponseHead,
    framing: Framing,
    signal: AbortSignal | undefined,
    onAbort: () => void,
  ): HttpResponse => {
    let settled = false;
    const finish = (reusable: boolean) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (reusable && keepAlive && framing.kind !== "close" && wire.buffered === 0) putBack(key, wire);
      else drop(wire);
    };
    if (framing.kind === "none") finish(true);
    const read = (limit: number): Promise<Uint8Array | undefined> => {
      switch (framing.kind) {
        case "none":
          return Promise.resolve(new Uint8Array());
        case "length":
          return wire.readLength(framing.length, limit);
        case "chunked":
          return wire.readChunked(limit);
        case "close":
          return wire.readToClose(limit);
      }
    };
    return {
      status,
      headers,
      protocol: version === 11 ? "http/1.1" : "http/1.0",
      asSent: true,
      bytes: async (limit) => {
        try {
          // An abort before the body is read closed the socket, but the body may sit whole in the read buffer: it is
          // still aborted, and finish must not put the closed connection back in the pool.
          signal?.throwIfAborted();
          const body = await read(limit);
          finish(body !== undefined);
          return body;
        } catch (error) {
          finish(false);
          throw signal?.aborted ? signal.reason ?? error : error;
        }
      },
      cancel: () => {
        finish(false);
        return Promise.resolve();
      },
    };
  };

  return {
    async fetch(url, init) {
      if (closed) throw new Error("the HTTP client is closed");
      const { signal } = init;
      signal?.throwIfAborted();
      const key = `${url.protocol}//${url.host}`;
      const request = encodeRequest(url, init);
      for (let attempt = 0;; attempt++) {
        // The request sent again goes on a new connection: the other idle ones to this origin are likely as stale as
        // the one that failed (a server's keep-alive timeout closes them all), and a second failure is not retried.
        const reused = attempt === 0 ? take(key) : undefined;
        const wire = reused ?? await connect(options.dial, url, signal, buffers);
        busy.add(wire);
        // Closing the socket makes a pending read or write fail at once: that is how an abort stops the exchange.
        const onAbort = () => drop(wire);
        signal?.addEventListener("abort", onAbort, { once: true });
        // An abort between the connection's arrival and the line above found no listener yet.
        if (signal?.aborted) onAbort();
        const before = wire.bytesRead;
        try {
          await wire.writeAll(request);
          const head = await wire.readHead();
          const framing = framingOf(init.method, head);
          return respond(key, wire, head, framing, signal, onAbort);
        } catch (error) {
          signal?.removeEventListener("abort", onAbort);
          drop(wire);
          if (signal?.aborted) throw signal.reason ?? error;
          const staleReuse = reused !== undefined && attempt === 0 && wire.bytesRead === before;
          if (staleReuse && IDEMPOTENT.has(init.method)) continue;
          throw error;
        }
      }
    },
    connections: () => ({ idle: idleCount, busy: busy.size, origins: idle.size }),
    close() {
      closed = true;
      for (const list of idle.values()) for (const entry of list) drop(entry.wire);
      idle.clear();
      idleCount = 0;
      for (const wire of [...busy]) drop(wire);
      if (sweeper !== undefined) clearInterval(sweeper);
      sweeper = undefined;
    },
  };
}
