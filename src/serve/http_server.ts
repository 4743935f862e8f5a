/**
 * The job server's own small HTTP/1.1 front on node:net, bridging to a web-standard fetch handler (the hono app's
 * `app.fetch`). Deno.serve and node:http give no say over connections, and "Keeping it private" in the serve spec
 * needs exactly that: a connection has 15 s from connecting to send its whole request or it is closed, one address
 * may hold 8 connections and everyone together 256, and past either a new connection is closed unanswered.
 *
 * Every response carries `Connection: close` and the connection is closed after it. That is simple and enough for a
 * JSON API whose clients are curl and dashboards; keep-alive would need the deadline restarted per request and
 * pipelining handled, for no gain here.
 */
import { Buffer } from "node:buffer";
import { createServer, type Socket } from "node:net";
import { jsonAnswer } from "./answer.ts";
import { headEnd, type ParsedHead, parseHead, RequestError } from "./http_parse.ts";
import { REASONS } from "./http_reasons.ts";

/**
 * Where the front's deadlines come from: the request deadline, the write stall, the linger and close()'s grace.
 * The real timers by default; tests give a clock they move by hand, so the 15 s rule is checked in milliseconds.
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};

/** What the handler learns about the connection besides the request. */
export interface RequestInfo {
  /** The client's IP address (IPv4-mapped IPv6 addresses in their IPv4 form). */
  remoteAddress: string;
}

/** A web-standard fetch handler, such as a hono app's `fetch`. */
export type FetchHandler = (request: Request, info: RequestInfo) => Response | Promise<Response>;

export interface HttpServerOptions {
  hostname: string;
  /** 0 lets the system pick a free port. */
  port: number;
  /** Time from connecting to the end of the request (line, headers and body); past it the connection is closed. */
  requestTimeoutMs?: number;
  /** Connections one address may hold open at once. */
  maxPerAddress?: number;
  /** Connections everyone together may hold open at once. */
  maxConnections?: number;
  /** Size of the request line and headers together; larger ones get 431. */
  maxHeaderBytes?: number;
  /** Size of a request body; larger ones get 413. */
  maxBodyBytes?: number;
  /** How long close() waits for responses still being written before cutting them off. */
  closeGraceMs?: number;
  /** How long a response may wait for a client that does not read it before the connection is cut. */
  writeStallMs?: number;
  /**
   * A client reading an answer must take at least minReadBytes in every readWindowMs during which the answer waited
   * for it, or the connection is cut: reading a little now and then would otherwise hold the connection for as long as
   * the answer lasts.
   */
  readWindowMs?: number;
  /** See readWindowMs. */
  minReadBytes?: number;
  /** Where to report handler failures and server errors, one line each; standard error by default. */
  log?: (line: string) => void;
  /**
   * The node_name of the errors this layer answers itself (a malformed request, one too large, a handler that
   * failed), so that they have the shape of every other answer of the service. Left out when not given.
   */
  nodeName?: string;
  /** The timers the deadlines use; the real ones by default. */
  timers?: Timers;
}

/** A running server started by {@link startHttpServer}. */
export interface HttpServer {
  readonly hostname: string;
  readonly port: number;
  /** Stops accepting, ends idle connections, waits for responses in flight (up to closeGraceMs), then cuts the rest. */
  close(): Promise<void>;
  /** Connections open now. */
  connections(): number;
}

const DEFAULTS = {
  requestTimeoutMs: 15_000,
  maxPerAddress: 8,
  maxConnections: 256,
  maxHeaderBytes: 16 * 1024,
  maxBodyBytes: 1024 * 1024,
  closeGraceMs: 5_000,
  writeStallMs: 60_000,
  readWindowMs: 15_000,
  minReadBytes: 64 * 1024,
};

/**
 * After the response is sent the connection stays a moment, discarding input, so that a client still sending a body
 * we refused (413) reads our answer instead of a reset. A client that closes when it has read the answer ends it sooner.
 */
const LINGER_MS = 2_000;

/** Response headers this server sets itself (framing belongs to the connection, not the handler). */
const OWN_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/** `{"status":"error","message":...}`, the shape every answer of the service has. */
function errorResponse(status: number, message: string, nodeName: string | undefined): Response {
  const answer = nodeName === undefined
    ? { status: "error", message }
    : { node_name: nodeName, status: "error", message };
  return jsonAnswer(answer, status);
}

/** One accepted connection. `responding` runs from a complete request until the response is flushed. */
interface Connection {
  socket: Socket;
  /** The client's address, as the per-address limit counts it. */
  address: string;
  phase: "reading" | "responding" | "lingering";
  closed: Promise<void>;
}

/** Starts serving `handler` on hostname:port; resolves once listening. */
export async function startHttpServer(handler: FetchHandler, options: HttpServerOptions): Promise<HttpServer> {
  const { timers = REAL_TIMERS, ...rest } = options;
  const limits = { ...DEFAULTS, ...definedOnly(rest) };
  for (const name of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    if (!(limits[name] > 0)) throw new RangeError(`${name} must be a positive number, not ${limits[name]}`);
  }
  const log = options.log ?? ((line: string) => console.error(line));
  const open = new Set<Connection>();
  /** Each address's open connections, oldest first (a Set keeps the order they were added in). */
  const perAddress = new Map<string, Set<Connection>>();
  let closing = false;

  /** Counts a connection out of the limits, once: when it has closed, or when it was made to give way. */
  const forget = (connection: Connection) => {
    open.delete(connection);
    const mine = perAddress.get(connection.address);
    mine?.delete(connection);
    if (mine?.size === 0) perAddress.delete(connection.address);
  };

  /**
   * Makes room among `connections` by closing the oldest one that is only lingering (its answer sent, the client's
   * side not closed yet). A client that opens its next connection as soon as it has read an answer would otherwise
   * find the last one still counted, for the moment its close takes to arrive, and be refused below the limit.
   */
  const giveWay = (connections: Iterable<Connection>): boolean => {
    for (const connection of connections) {
      if (connection.phase !== "lingering") continue;
      forget(connection);
      connection.socket.destroy();
      return true;
    }
    return false;
  };

  const server = createServer({ allowHalfOpen: true }, (socket) => {
    const address = plainAddress(socket.remoteAddress);
    socket.on("error", () => {}); // resets are routine; 'close' follows and does the bookkeeping
    const mine = perAddress.get(address ?? "") ?? new Set<Connection>();
    const room = (mine.size < limits.maxPerAddress || giveWay(mine)) &&
      (open.size < limits.maxConnections || giveWay(open));
    if (closing || address === undefined || !room) {
      socket.destroy(); // unanswered, at once: an answer would cost more than the connection is worth
      return;
    }
    const connection = serveConnection(socket, address);
    open.add(connection);
    perAddress.set(address, mine.add(connection));
    void connection.closed.then(() => forget(connection));
  });
  const { hostname, port } = await new Promise<{ hostname: string; port: number }>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: options.hostname, port: options.port }, () => {
      server.off("error", reject);
      const bound = server.address();
      if (bound === null || typeof bound === "string") reject(new Error("the server has no TCP address"));
      else resolve({ hostname: bound.address, port: bound.port });
    });
  });
  server.on("error", (error) => log(`http server error: ${String(error)}`));

  function serveConnection(socket: Socket, remoteAddress: string): Connection {
    const { promise: closed, resolve: markClosed } = Promise.withResolvers<void>();
    const connection: Connection = { socket, address: remoteAddress, phase: "reading", closed };
    const gone = new AbortController();
    let buffered: Buffer = Buffer.alloc(0);
    let head: ParsedHead | undefined;
    /** Bytes of the answer handed to the socket so far, and whether a write is waiting for the client now. */
    let handedOver = 0;
    let waiting = false;
    /** Whether a write waited for the client since the read window began. */
    let waitedInWindow = false;
    let timer: unknown = timers.setTimeout(() => {
      // No 408: the spec says such a connection is closed, and a client this slow may not read an answer either.
      if (connection.phase === "reading") socket.destroy();
    }, limits.requestTimeoutMs);
    const setTimer = (ms: number) => {
      timers.clearTimeout(timer);
      timer = timers.setTimeout(() => socket.destroy(), ms);
    };

    socket.setNoDelay(true);
    socket.on("close", () => {
      timers.clearTimeout(timer);
      gone.abort(new Error("the client went away"));
      markClosed();
    });
    // The request must be whole before the client stops sending; after it, input is read and dropped (see LINGER_MS).
    socket.on("end", () => {
      if (connection.phase === "reading") socket.destroy();
    });
    socket.on("data", (chunk: Buffer) => {
      if (connection.phase !== "reading") return;
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      try {
        if (head === undefined) {
          buffered = skipLeadingNewlines(buffered);
          const end = headEnd(buffered);
          if (end < 0 && buffered.length <= limits.maxHeaderBytes) return;
          if (end < 0 || end > limits.maxHeaderBytes) {
            throw new RequestError(431, "the request line and headers are too large");
          }
          head = parseHead(buffered.subarray(0, end).toString("latin1"), limits.maxBodyBytes);
          buffered = buffered.subarray(end);
          if (head.expectContinue && head.contentLength > buffered.length) {
            socket.write("HTTP/1.1 100 Continue\r\n\r\n");
          }
        }
        if (buffered.length < head.contentLength) return;
      } catch (error) {
        if (!(error instanceof RequestError)) throw error;
        void respond(errorResponse(error.status, error.message, options.nodeName), false, true);
        return;
      }
      const body = buffered.subarray(0, head.contentLength);
      buffered = Buffer.alloc(0);
      void handle(head, body);
    });

    async function handle(head: ParsedHead, body: Buffer): Promise<void> {
      connection.phase = "responding";
      timers.clearTimeout(timer);
      let request: Request;
      try {
        request = new Request(head.url ?? `http://${head.host ?? listenAuthority(hostname, port)}${head.target}`, {
          method: head.method,
          headers: head.headers,
          body: /^(GET|HEAD)$/i.test(head.method) || body.length === 0 ? null : new Uint8Array(body),
          signal: gone.signal,
        });
      } catch (error) {
        const status = /method/i.test(String(error)) ? 501 : 400;
        return respond(
          errorResponse(status, `the request cannot be served: ${messageOf(error)}`, options.nodeName),
          false,
          true,
        );
      }
      let response: Response;
      try {
        response = await handler(request, { remoteAddress });
        if (!(response instanceof Response)) throw new TypeError("the handler did not return a Response");
      } catch (error) {
        log(`${head.method} ${head.target} failed: ${error instanceof Error ? error.stack : String(error)}`);
        response = errorResponse(500, "internal error", options.nodeName);
      }
      return respond(response, request.method === "HEAD", head.version === "1.1");
    }

    /** Writes the response, then ends the connection; a broken stream or a lost client cuts it instead. */
    async function respond(response: Response, headOnly: boolean, chunkedOk: boolean): Promise<void> {
      connection.phase = "responding";
      timers.clearTimeout(timer);
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
      const cancel = () => void reader?.cancel().catch(() => {});
      gone.signal.addEventListener("abort", cancel, { once: true });
      const watching = watchSlowReader();
      try {
        reader = response.body?.getReader();
        const noBody = headOnly || response.status === 204 || response.status === 304 || response.status < 200;
        const declared = contentLength(response.headers);
        const framing = noBody
          ? "none"
          : !reader
          ? "empty"
          : declared !== undefined
          ? "length"
          : chunkedOk
          ? "chunked"
          : "close";
        const lines = [`HTTP/1.1 ${response.status} ${response.statusText || REASONS[response.status] || ""}`];
        for (const [name, value] of response.headers) {
          if (!OWN_HEADERS.has(name) && name !== "set-cookie") lines.push(`${name}: ${value}`);
        }
        for (const cookie of response.headers.getSetCookie()) lines.push(`set-cookie: ${cookie}`);
        if (!response.headers.has("date")) lines.push(`date: ${new Date().toUTCString()}`);
        if (framing === "length" || (framing === "none" && headOnly && declared !== undefined)) {
          lines.push(`content-length: ${declared}`);
        }
        if (framing === "empty") lines.push("content-length: 0");
        if (framing === "chunked") lines.push("transfer-encoding: chunked");
        lines.push("connection: close", "", "");
        await write(Buffer.from(lines.join("\r\n"), "latin1"));
        if (framing === "none" || framing === "empty") {
          cancel();
        } else {
          let left = declared ?? Infinity;
          while (left > 0) {
            const { done, value } = await reader!.read();
            if (done) break;
            const chunk = value.byteLength > left ? value.subarray(0, left) : value;
            left -= chunk.byteLength;
            if (chunk.byteLength === 0) continue;
            await write(framing === "chunked" ? framed(chunk) : chunk);
          }
          cancel();
          // A body shorter than its Content-Length must not look complete: cut the connection instead of ending it.
          if (left > 0 && left !== Infinity) throw new Error(`the response body ended ${left} bytes short`);
          if (framing === "chunked") await write(Buffer.from("0\r\n\r\n"));
        }
        setTimer(limits.writeStallMs);
        socket.end(() => {
          connection.phase = "lingering";
          if (closing) socket.destroy();
          else setTimer(LINGER_MS);
        });
      } catch (error) {
        if (!gone.signal.aborted) log(`response to ${remoteAddress} cut off: ${messageOf(error)}`);
        cancel();
        socket.destroy();
      } finally {
        watching.stop();
        gone.signal.removeEventListener("abort", cancel);
      }
    }

    /**
     * Cuts the connection when, in a read window during which the answer waited for the client, the client took
     * less than minReadBytes of it: 16 KB every 15 s kept a connection (one of its address's 8) for as long as the
     * answer lasted. Time the service itself spends (the handler, reading a file) is not counted against the client.
     */
    function watchSlowReader(): { stop(): void } {
      let windowStart = handedOver;
      waitedInWindow = waiting;
      let window: unknown;
      const next = () => {
        window = timers.setTimeout(() => {
          const taken = handedOver - windowStart;
          if ((waitedInWindow || waiting) && taken < limits.minReadBytes) {
            log(
              `response to ${remoteAddress} cut off: the client read ${taken} bytes in ${
                limits.readWindowMs / 1000
              } s ` +
                `(at least ${limits.minReadBytes} needed)`,
            );
            socket.destroy();
            return;
          }
          windowStart = handedOver;
          waitedInWindow = waiting;
          next();
        }, limits.readWindowMs);
      };
      next();
      return { stop: () => timers.clearTimeout(window) };
    }

    /** Writes with backpressure: waits for 'drain', and cuts a client that reads nothing for writeStallMs. */
    function write(data: Uint8Array): Promise<void> {
      if (socket.destroyed) return Promise.reject(new Error("the connection is closed"));
      handedOver += data.byteLength;
      if (socket.write(data)) return Promise.resolve();
      waiting = waitedInWindow = true;
      return new Promise((resolve, reject) => {
        const stall = timers.setTimeout(() => socket.destroy(), limits.writeStallMs);
        const done = (error?: Error) => {
          waiting = false;
          timers.clearTimeout(stall);
          socket.off("drain", onDrain);
          socket.off("close", onClose);
          if (error) reject(error);
          else resolve();
        };
        const onDrain = () => done();
        const onClose = () => done(new Error("the connection closed while writing"));
        socket.on("drain", onDrain);
        socket.on("close", onClose);
      });
    }

    return connection;
  }

  return {
    hostname,
    port,
    connections: () => open.size,
    async close() {
      if (closing) return;
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of open) if (connection.phase !== "responding") connection.socket.destroy();
      const inFlight = [...open].map((connection) => connection.closed);
      let grace: unknown;
      await Promise.race([
        Promise.all(inFlight),
        new Promise<void>((resolve) => grace = timers.setTimeout(resolve, limits.closeGraceMs)),
      ]);
      timers.clearTimeout(grace);
      for (const connection of open) connection.socket.destroy();
      await Promise.all([...open].map((connection) => connection.closed));
      await stopped;
    },
  };
}

/** The options that were given, so that `undefined` does not override a default. */
function definedOnly(options: HttpServerOptions): Partial<typeof DEFAULTS> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function plainAddress(address: string | undefined): string | undefined {
  return address?.startsWith("::ffff:") ? address.slice(7) : address;
}

function listenAuthority(hostname: string, port: number): string {
  return `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

/** RFC 9112 allows blank lines before a request line; they are dropped. */
function skipLeadingNewlines(buffer: Buffer): Buffer {
  let start = 0;
  while (start < buffer.length && (buffer[start] === 13 || buffer[start] === 10)) start++;
  return start === 0 ? buffer : buffer.subarray(start);
}

/** The response's own Content-Length when it is a plain number; anything else is ignored. */
function contentLength(headers: Headers): number | undefined {
  const value = headers.get("content-length");
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

function framed(chunk: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
