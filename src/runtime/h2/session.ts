/**
 * One HTTP/2 connection to an origin, on node:http2 (Deno's and Node's; docs/design/engine.md, "HTTP/2"), carrying
 * many requests at once as streams. node:http2 does the framing, HPACK header compression and flow control (it sends
 * WINDOW_UPDATEs as the body is read); this file adds what a crawler needs on top:
 *
 * - the server's SETTINGS_MAX_CONCURRENT_STREAMS is a gate: no stream is opened before the server's SETTINGS have
 *   arrived, and past its limit requests wait here for a stream to end (node:http2 on Node would send them anyway,
 *   and the server refuses them);
 * - a request the server did not process (RFC 9113, 8.7: refused with REFUSED_STREAM, or above the last stream id
 *   of a GOAWAY) rejects with {@link UnprocessedRequest}, for the client to send again on a new connection;
 * - the body is read whole into one buffer within a limit, as the HTTP/1.1 client does; trailers are not read.
 */
import { type ClientHttp2Session, type ClientHttp2Stream, connect, constants } from "node:http2";
import type { Socket } from "node:net";
import type { HttpRequest, HttpResponse } from "../types.ts";
import { HeaderList } from "../header_list.ts";

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = constants;

/** Headers HTTP/2 forbids (RFC 9113, 8.2.2): connection-specific ones, which node:http2 refuses to send. */
const CONNECTION_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "host",
  "http2-settings",
]);
/** Methods that may be sent twice (RFC 9110, 9.2.2). */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);
/** Methods whose requests carry a body, so an empty one is still announced with a length. */
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
/** The error codes of RFC 9113, section 7, by number, for messages. */
const ERROR_NAMES = [
  "NO_ERROR",
  "PROTOCOL_ERROR",
  "INTERNAL_ERROR",
  "FLOW_CONTROL_ERROR",
  "SETTINGS_TIMEOUT",
  "STREAM_CLOSED",
  "FRAME_SIZE_ERROR",
  "REFUSED_STREAM",
  "CANCEL",
  "COMPRESSION_ERROR",
  "CONNECT_ERROR",
  "ENHANCE_YOUR_CALM",
  "INADEQUATE_SECURITY",
  "HTTP_1_1_REQUIRED",
];

/** A request the server did not process (refused, or past a GOAWAY): it may be sent again, whatever its method. */
export class UnprocessedRequest extends Error {
  override name = "UnprocessedRequest";
}

/** A stream the server reset, or a connection it ended with an error, after it had taken the request. */
export class Http2StreamError extends Error {
  override name = "Http2StreamError";
}

export interface SessionOptions {
  /** Called once the session takes no new requests (GOAWAY, an error, closed), for the pool to forget it. */
  onRetire: (session: Http2Session) => void;
  /** How long the session is kept with no stream open. */
  idleMs: number;
}

export class Http2Session {
  readonly #session: ClientHttp2Session;
  readonly #options: SessionOptions;
  /** Resolves once the server's first SETTINGS frame has arrived; rejects if the connection fails before. */
  readonly #settled: Promise<void>;
  #maxStreams = 1;
  #active = 0;
  /** Requests waiting for a stream: called with true once one is theirs, false when the session retired. */
  readonly #waiting: Array<(granted: boolean) => void> = [];
  /** The last stream id the server's GOAWAY says it may have processed; streams above it were not. */
  #lastProcessed = Infinity;
  #retired = false;
  #hasSettings = false;
  /** Whether a request has had a stream of it: until then its opener is still on its way to use it. */
  #used = false;
  /** Streams sent and not answered yet: those past a GOAWAY's last stream are cancelled, never to be answered. */
  readonly #unanswered = new Set<ClientHttp2Stream>();
  #failure: Error | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  /** Takes over `socket`, on which HTTP/2 was agreed (ALPN h2, or h2c by prior knowledge). */
  constructor(origin: string, socket: Socket, options: SessionOptions) {
    this.#options = options;
    this.#session = connect(origin, { createConnection: () => socket, settings: { enablePush: false } });
    const session = this.#session;
    this.#settled = new Promise((resolve, reject) => {
      session.once("remoteSettings", () => {
        this.#hasSettings = true;
        resolve();
      });
      session.once(
        "close",
        () => reject(this.#failure ?? new Error("the HTTP/2 connection closed before its SETTINGS")),
      );
    });
    // Handled where it is awaited; an error then settles it before any request waits on it.
    this.#settled.catch(() => {});
    session.on("remoteSettings", (settings) => {
      this.#maxStreams = Math.max(1, settings.maxConcurrentStreams ?? 100);
      this.#wake();
    });
    session.on("goaway", (code: number, lastStreamId: number) => {
      this.#lastProcessed = lastStreamId;
      // nghttp2 (Node) closes them itself; Deno's client leaves them open, waiting for answers that will not come.
      for (const stream of this.#unanswered) {
        if (stream.id === undefined || stream.id > lastStreamId) stream.close(NGHTTP2_CANCEL);
      }
      if (code !== 0) this.#failure ??= new Http2StreamError(`the server ended the connection (${errorName(code)})`);
      this.#retire();
    });
    session.on("error", (error: Error) => {
      this.#failure ??= error;
      this.#retire();
    });
    session.on("close", () => this.#retire());
    // Not unref'd yet: the request that opened it waits for the server's SETTINGS, and must keep the process alive.
    this.#idleTimer = setTimeout(() => this.#active === 0 && this.close(), this.#options.idleMs);
    (this.#idleTimer as { unref?: () => void }).unref?.();
  }

  /** Whether new requests may go on this connection. */
  get usable(): boolean {
    return !this.#retired;
  }

  /** Streams open now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Whether closing it now would take nothing from anyone: it has carried a request, and none is open or waiting.
   * A new session is not, though it has no stream yet: the request that opened it has not started its own.
   */
  get idle(): boolean {
    return this.#used && this.#active === 0 && this.#waiting.length === 0;
  }

  /** Closes the connection: streams in flight end with it. */
  close(): void {
    this.#retire();
    this.#session.destroy();
  }

  #retire(): void {
    if (this.#retired) return;
    this.#retired = true;
    clearTimeout(this.#idleTimer);
    this.#options.onRetire(this);
    // Waiting requests were never sent: they go to another connection.
    for (const wake of this.#waiting.splice(0)) wake(false);
    if (this.#active === 0) this.#session.close();
  }

  #wake(): void {
    while (this.#waiting.length > 0 && this.#active < this.#maxStreams) {
      this.#active++;
      this.#waiting.shift()!(true);
    }
  }

  /** Waits for a stream of the server's allowance; false when the session retired first (nothing was sent). */
  async #slot(signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await abortable(this.#settled, signal);
    } catch (error) {
      if (signal?.aborted) {
        // A request gave up before the server's SETTINGS came, which a server sends first thing: the connection is
        // dead, and later requests must not wait on it too.
        if (!this.#hasSettings) this.close();
        throw signal.reason ?? error;
      }
      // The connection failed before its SETTINGS: nothing was sent on it.
      return false;
    }
    if (this.#retired) return false;
    if (this.#active < this.#maxStreams && this.#waiting.length === 0) {
      this.#active++;
    } else {
      const { promise, resolve } = Promise.withResolvers<boolean>();
      let given = false;
      const entry = (granted: boolean) => {
        given = granted;
        resolve(granted);
      };
      this.#waiting.push(entry);
      try {
        if (!await abortable(promise, signal)) return false;
      } catch (error) {
        const at = this.#waiting.indexOf(entry);
        if (at >= 0) this.#waiting.splice(at, 1);
        if (given) this.#release();
        throw error;
      }
    }
    this.#used = true;
    clearTimeout(this.#idleTimer);
    this.#session.ref?.();
    return true;
  }

  #release(): void {
    this.#active--;
    this.#wake();
    if (this.#active > 0 || this.#waiting.length > 0) return;
    if (this.#retired) {
      this.#session.close();
      return;
    }
    this.#unrefWhenIdle();
  }

  /** An idle connection keeps no process alive, and is closed after idleMs. */
  #unrefWhenIdle(): void {
    this.#session.unref?.();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.close(), this.#options.idleMs);
    (this.#idleTimer as { unref?: () => void }).unref?.();
  }

  /** Sends one request on a stream of its own; resolves with the response head, its body still to read. */
  async request(url: URL, init: HttpRequest): Promise<HttpResponse> {
    const { signal } = init;
    if (!await this.#slot(signal)) {
      throw new UnprocessedRequest(`the HTTP/2 connection to ${url.host} was closed before the request was sent`);
    }
    let stream: ClientHttp2Stream;
    try {
      stream = this.#session.request(requestHeaders(url, init), { endStream: init.body === undefined });
    } catch (error) {
      // The session went away between the slot and here (ERR_HTTP2_GOAWAY_SESSION, ERR_HTTP2_INVALID_SESSION).
      this.#release();
      if (this.#retired) {
        throw new UnprocessedRequest(`the HTTP/2 connection to ${url.host} went away`, { cause: error });
      }
      throw error;
    }
    this.#unanswered.add(stream);
    stream.once("close", () => {
      this.#unanswered.delete(stream);
      this.#release();
    });
    if (init.body !== undefined) stream.end(init.body);
    return await new Promise<HttpResponse>((resolve, reject) => {
      let answered = false;
      const onAbort = () => stream.close(NGHTTP2_CANCEL);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();
      stream.once("response", (head) => {
        answered = true;
        this.#unanswered.delete(stream);
        resolve(streamResponse(stream, head, signal, onAbort));
      });
      const fail = (error?: Error) => {
        if (answered) return;
        answered = true;
        signal?.removeEventListener("abort", onAbort);
        if (signal?.aborted) return reject(signal.reason ?? error);
        reject(this.#whyClosed(stream, url, init.method, error));
      };
      stream.once("error", fail);
      stream.once("close", () => fail());
    });
  }

  /**
   * The error for a stream that closed before its response came, and not by the request's abort. Unprocessed, to be
   * sent again: refused, or past a GOAWAY's last stream; and, for a method that may be sent twice, a stream cancelled
   * under it or lost with its connection. Deno's client reports a GOAWAY no other way: it emits no "goaway" and
   * cancels every open stream, processed or not; the connection it leaves is not used again.
   */
  #whyClosed(stream: ClientHttp2Stream, url: URL, method: string, error: Error | undefined): Error {
    const code = stream.rstCode;
    const id = stream.id;
    const cause = error ?? this.#failure;
    if (code === NGHTTP2_REFUSED_STREAM || id === undefined || id > this.#lastProcessed) {
      return new UnprocessedRequest(`${url.host} did not process the request (${errorName(code ?? 7)})`, { cause });
    }
    const lost = code === NGHTTP2_CANCEL || this.#retired || this.#session.closed || this.#session.destroyed;
    if (lost && IDEMPOTENT.has(method)) {
      this.#retire();
      return new UnprocessedRequest(
        `the HTTP/2 stream to ${url.host} ended before an answer (${errorName(code ?? 8)})`,
        {
          cause,
        },
      );
    }
    if (code !== undefined && code !== 0) {
      return new Http2StreamError(`${url.host} reset the HTTP/2 stream (${errorName(code)})`, { cause });
    }
    return new Http2StreamError(`the HTTP/2 connection to ${url.host} closed before the response`, { cause });
  }
}

function errorName(code: number): string {
  return ERROR_NAMES[code] ?? `error code ${code}`;
}

/** Resolves as `promise` does, or rejects with the signal's reason once it aborts (the promise goes on). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The request's pseudo-headers and headers, without those HTTP/2 forbids; Host becomes :authority. */
function requestHeaders(url: URL, init: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {
    ":method": init.method,
    ":scheme": url.protocol.slice(0, -1),
    ":authority": init.headers.get("host") ?? url.host,
    ":path": `${url.pathname}${url.search}`,
  };
  init.headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) headers[name] = value;
  });
  if (init.headers.get("te")?.toLowerCase() !== "trailers") delete headers["te"];
  if (headers["content-length"] === undefined) {
    if (init.body !== undefined) headers["content-length"] = String(new TextEncoder().encode(init.body).byteLength);
    else if (WITH_BODY.has(init.method)) headers["content-length"] = "0";
  }
  return headers;
}

/**
 * The response's head as an HttpResponse. The body is read from the moment the head arrives, not when `bytes` is
 * asked for: Deno's client drops what a stream had buffered when its connection closes (after a GOAWAY, once the
 * last stream ends), so a body read later would never end. `bytes` is asked for at once anyway (the downloader reads
 * every body whole), so nothing is held that would not be.
 */
function streamResponse(
  stream: ClientHttp2Stream,
  head: Record<string, string | string[] | number | undefined>,
  signal: AbortSignal | undefined,
  onAbort: () => void,
): HttpResponse {
  const headers = new HeaderList();
  for (const [name, value] of Object.entries(head)) {
    if (name.startsWith(":") || value === undefined) continue;
    if (Array.isArray(value)) { for (const one of value) headers.append(name, one); }
    else headers.append(name, String(value));
  }
  const body = new BodyReader(stream, signal);
  const done = () => signal?.removeEventListener("abort", onAbort);
  return {
    status: Number(head[":status"]),
    headers,
    protocol: "h2",
    asSent: true,
    bytes: (limit) => body.within(limit).finally(done),
    cancel: () => {
      done();
      body.cancel();
      return Promise.resolve();
    },
  };
}

/** A stream's body gathered into one buffer as it comes, up to a limit set when it is asked for. */
class BodyReader {
  readonly #stream: ClientHttp2Stream;
  readonly #chunks: Uint8Array[] = [];
  #size = 0;
  #limit = Infinity;
  #outcome: { body?: Uint8Array; error?: unknown } | undefined;
  #settle: ((body: Uint8Array | undefined, error?: unknown) => void) | undefined;

  constructor(stream: ClientHttp2Stream, signal: AbortSignal | undefined) {
    this.#stream = stream;
    stream.on("data", (chunk: Uint8Array) => {
      if (this.#outcome) return;
      this.#size += chunk.byteLength;
      if (this.#size > this.#limit) return this.#over();
      this.#chunks.push(chunk);
    });
    stream.once("end", () => this.#finish({ body: join(this.#chunks, this.#size) }));
    stream.once("error", (error) => this.#finish({ error }));
    stream.once("close", () => {
      const code = stream.rstCode;
      if (code !== undefined && code !== 0) {
        this.#finish({
          error: new Http2StreamError(`the server reset the HTTP/2 stream mid-body (${errorName(code)})`),
        });
      } else this.#finish({ body: join(this.#chunks, this.#size) });
    });
    signal?.addEventListener("abort", () => this.#finish({ error: signal.reason }), { once: true });
  }

  #over(): void {
    this.#finish({});
    this.#stream.close(NGHTTP2_CANCEL);
  }

  #finish(outcome: { body?: Uint8Array; error?: unknown }): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    this.#chunks.length = 0;
    this.#settle?.(outcome.body, outcome.error);
  }

  /** The whole body, or undefined once more than `limit` bytes came (the stream is then cancelled). */
  within(limit: number): Promise<Uint8Array | undefined> {
    this.#limit = limit;
    if (!this.#outcome && this.#size > limit) this.#over();
    if (this.#outcome) {
      const { body, error } = this.#outcome;
      if (error !== undefined) return Promise.reject(error);
      return Promise.resolve(body !== undefined && body.byteLength <= limit ? body : undefined);
    }
    return new Promise((resolve, reject) => {
      this.#settle = (body, error) => error !== undefined ? reject(error) : resolve(body);
    });
  }

  cancel(): void {
    this.#finish({});
    if (!this.#stream.closed) this.#stream.close(NGHTTP2_CANCEL);
  }
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return new Uint8Array(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength);
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
