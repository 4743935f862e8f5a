/**
 * HTTP/1.1 on the wire, for the client in client.ts: a connection's read buffer, the response head, and the body's
 * three framings (a Content-Length, chunked, or until the server closes). Pure over a {@link WireSocket}, so it runs
 * on any runtime that can open a TCP or TLS socket; src/runtime/deno_socket.ts gives it Deno's.
 *
 * Lenient where servers are sloppy and browsers forgive it (bare LF line ends, a missing reason phrase, folded header
 * lines, a header line that is no header), strict where leniency would misread the body (conflicting lengths, a bad
 * chunk size): a misframed body would hand the next response on the connection someone else's bytes.
 */

import { HeaderList } from "../header_list.ts";

/** A connected byte stream: Deno.Conn has this shape. */
export interface WireSocket {
  /** Reads into `into`; resolves with the count, or null at the end of the stream. */
  read(into: Uint8Array): Promise<number | null>;
  /** Writes some of `bytes`; resolves with how many were written. */
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
}

/** The largest response head read; a server sending more is broken or hostile. */
export const MAX_HEAD_BYTES = 256 * 1024;
const INITIAL_BUFFER = 16 * 1024;
/** The buffer of an idle connection: none (see Wire.release). */
const NO_BUFFER = new Uint8Array(0);

/**
 * Read buffers given up by connections going idle, for the next connection that reads: a broad crawl keeps thousands
 * of idle connections, which hold no buffer, and a response on a kept connection does not allocate a new one (16 KB
 * a response was garbage for the collector). Only buffers of the first size are kept, at most `max` of them.
 */
export class ReadBuffers {
  readonly #free: Uint8Array[] = [];
  readonly #max: number;

  constructor(max = 256) {
    this.#max = max;
  }

  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(INITIAL_BUFFER);
  }

  give(buffer: Uint8Array): void {
    if (buffer.length === INITIAL_BUFFER && this.#free.length < this.#max) this.#free.push(buffer);
  }
}
const LF = 10;
const CR = 13;

/** What the server said before the body, and how the body is framed. */
export interface ResponseHead {
  /** 10 for HTTP/1.0, 11 for HTTP/1.1. */
  version: number;
  status: number;
  headers: Headers;
  /** Whether the server is willing to take another request on this connection after this response. */
  keepAlive: boolean;
}

/** How a body ends. */
export type Framing =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  | { kind: "close" };

/** A failure of the exchange itself: the server's bytes were not an HTTP response, or stopped short. */
export class WireError extends Error {
  override name = "WireError";
}

/** A socket with a read buffer: what was read past one response's end stays for the next read. */
export class Wire {
  readonly socket: WireSocket;
  readonly #buffers: ReadBuffers;
  #buffer: Uint8Array;
  #start = 0;
  #end = 0;
  /** Bytes read from the socket so far: unchanged across a failed exchange means the server sent nothing. */
  bytesRead = 0;

  /** `buffers`: where its read buffer comes from and goes back to while idle (the client's; its own when absent). */
  constructor(socket: WireSocket, buffers = new ReadBuffers(0)) {
    this.socket = socket;
    this.#buffers = buffers;
    this.#buffer = buffers.take();
  }

  /** Bytes read and not yet used. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /**
   * Gives up the read buffer of a connection going idle, when nothing is left in it: a broad crawl keeps thousands of
   * idle connections, and 16 KB each (more, grown by a long head) would be most of its memory. The buffer goes back to
   * the client's ReadBuffers, and the next read takes one from there.
   */
  release(): void {
    if (this.#start !== this.#end || this.#buffer === NO_BUFFER) return;
    this.#buffers.give(this.#buffer);
    this.#buffer = NO_BUFFER;
    this.#start = this.#end = 0;
  }

  /** Reads more from the socket into the buffer; false at the end of the stream. */
  async #fill(): Promise<boolean> {
    if (this.#buffer === NO_BUFFER) this.#buffer = this.#buffers.take();
    if (this.#end === this.#buffer.length) {
      const used = this.#end - this.#start;
      if (this.#start > 0 && used <= this.#buffer.length / 2) {
        this.#buffer.copyWithin(0, this.#start, this.#end);
      } else {
        const grown = new Uint8Array(this.#buffer.length * 2);
        grown.set(this.#buffer.subarray(this.#start, this.#end));
        this.#buffer = grown;
      }
      this.#start = 0;
      this.#end = used;
    }
    const count = await this.socket.read(this.#buffer.subarray(this.#end));
    if (count === null) return false;
    this.#end += count;
    this.bytesRead += count;
    return true;
  }

  /** Writes all of `bytes`. */
  async writeAll(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) at += await this.socket.write(at === 0 ? bytes : bytes.subarray(at));
  }

  /**
   * The next line if the buffer holds all of it, else undefined (and nothing is used up). A response head usually
   * arrives whole in one read: taking its lines from here spares a promise and a turn of the event loop per line.
   */
  #bufferedLine(): string | undefined {
    // indexOf from an offset, not on a subarray: no view object per line. A hit past the end is stale bytes.
    const at = this.#buffer.indexOf(LF, this.#start);
    return at < 0 || at >= this.#end ? undefined : this.#takeLine(at);
  }

  /** The line that ends with the LF at `at`, used up. */
  #takeLine(at: number): string {
    const end = at > this.#start && this.#buffer[at - 1] === CR ? at - 1 : at;
    const line = latin1(this.#buffer, this.#start, end);
    this.#start = at + 1;
    return line;
  }

  /** One line (without its CR LF or bare LF), read as Latin-1, or null at the end of the stream. */
  async #line(max: number): Promise<string | null> {
    let from = this.#start;
    for (;;) {
      const lf = this.#buffer.subarray(from, this.#end).indexOf(LF);
      if (lf >= 0) return this.#takeLine(from + lf);
      if (this.#end - this.#start > max) throw new WireError(`a line of the response is longer than ${max} bytes`);
      from = this.#end;
      const offset = from - this.#start;
      if (!await this.#fill()) return null;
      from = this.#start + offset;
    }
  }

  /**
   * The next response head, skipping interim (1xx) responses. The client tells a server that closed an idle
   * connection from a broken answer by `bytesRead`: unchanged, nothing of a response came.
   */
  async readHead(): Promise<ResponseHead> {
    for (;;) {
      const head = await this.#readOneHead();
      // 100 Continue and 103 Early Hints come before the real answer; 101 is never asked for.
      if (head.status >= 100 && head.status < 200 && head.status !== 101) continue;
      return head;
    }
  }

  async #readOneHead(): Promise<ResponseHead> {
    let budget = MAX_HEAD_BYTES;
    let statusLine = this.#bufferedLine() ?? await this.#line(budget);
    // Some servers send a stray empty line after a body; it is no part of the next head.
    while (statusLine === "") statusLine = this.#bufferedLine() ?? await this.#line(budget);
    if (statusLine === null) {
      throw new WireError(
        "the server closed the connection without an answer (connection closed before message completed)",
      );
    }
    budget -= statusLine.length;
    const match = /^HTTP\/1\.([01])\s+(\d{3})(?:\s.*)?$/.exec(statusLine);
    if (!match) throw new WireError(`not an HTTP/1 response: ${JSON.stringify(statusLine.slice(0, 60))}`);
    const version = match[1] === "1" ? 11 : 10;
    const status = Number(match[2]);
    const headers = new HeaderList();
    let last: [string, string] | undefined;
    for (;;) {
      const line = this.#bufferedLine() ?? await this.#line(budget);
      if (line === null) throw new WireError("the connection closed in the middle of the response head");
      budget -= line.length + 2;
      if (budget < 0) throw new WireError(`the response head is larger than ${MAX_HEAD_BYTES / 1024} KB`);
      if (line === "") break;
      if (last && (line.charCodeAt(0) === 32 || line.charCodeAt(0) === 9)) {
        // An obsolete folded line continues the header before it.
        last[1] += " " + line.trim();
        continue;
      }
      if (last) appendHeader(headers, last[0], last[1]);
      const colon = line.indexOf(":");
      last = colon > 0 ? [line.slice(0, colon).trimEnd(), line.slice(colon + 1).trim()] : undefined;
    }
    if (last) appendHeader(headers, last[0], last[1]);
    const connection = headers.get("connection")?.toLowerCase() ?? "";
    // A 101 hands the connection to another protocol: never asked for, and never one to send HTTP on again.
    const keepAlive = status !== 101 &&
      (version === 11 ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection));
    return { version, status, headers, keepAlive };
  }

  /** The bytes of a body of `length` bytes, or undefined once more than `limit` would arrive. */
  async readLength(length: number, limit: number): Promise<Uint8Array | undefined> {
    if (length > limit) return undefined;
    const body = new Uint8Array(length);
    let got = Math.min(length, this.buffered);
    body.set(this.#buffer.subarray(this.#start, this.#start + got));
    this.#start += got;
    // The rest straight from the socket into the body: no copy through the connection's buffer.
    while (got < length) {
      const count = await this.socket.read(body.subarray(got));
      if (count === null) throw new WireError(`the connection closed ${length - got} bytes before the body's end`);
      got += count;
      this.bytesRead += count;
    }
    return body;
  }

  /** A chunked body, decoded; undefined once more than `limit` bytes have arrived. Trailers are read and dropped. */
  async readChunked(limit: number): Promise<Uint8Array | undefined> {
    const body = new Grower(Math.min(limit, Math.max(this.buffered, INITIAL_BUFFER)));
    for (;;) {
      const sizeLine = this.#bufferedLine() ?? await this.#line(1024);
      if (sizeLine === null) throw new WireError("the connection closed before the chunked body's end");
      const hex = sizeLine.split(";")[0].trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) {
        throw new WireError(`bad chunk size ${JSON.stringify(sizeLine.slice(0, 40))} in a chunked body`);
      }
      const size = parseInt(hex, 16);
      if (size === 0) break;
      if (body.size + size > limit) return undefined;
      let left = size;
      while (left > 0) {
        if (this.buffered === 0 && !await this.#fill()) {
          throw new WireError("the connection closed before the chunked body's end");
        }
        const take = Math.min(left, this.buffered);
        body.push(this.#buffer.subarray(this.#start, this.#start + take));
        this.#start += take;
        left -= take;
      }
      const end = this.#bufferedLine() ?? await this.#line(1024);
      if (end !== "") throw new WireError("a chunk of a chunked body does not end where its size says");
    }
    for (;;) {
      const trailer = await this.#line(MAX_HEAD_BYTES);
      if (trailer === null || trailer === "") break;
    }
    return body.bytes();
  }

  /** A body that ends when the server closes the connection; undefined once more than `limit` have arrived. */
  async readToClose(limit: number): Promise<Uint8Array | undefined> {
    const body = new Grower(Math.min(limit, Math.max(this.buffered, INITIAL_BUFFER)));
    for (;;) {
      if (this.buffered > 0) {
        if (body.size + this.buffered > limit) return undefined;
        body.push(this.#buffer.subarray(this.#start, this.#end));
        this.#start = this.#end;
      }
      if (!await this.#fill()) return body.bytes();
    }
  }
}

/** How a response's body is framed (RFC 9112, section 6.3), for a request of `method`. */
export function framingOf(method: string, head: ResponseHead): Framing {
  const { status, headers } = head;
  if (method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200)) {
    return { kind: "none" };
  }
  const transfer = headers.get("transfer-encoding");
  if (transfer !== null) {
    const codings = transfer.toLowerCase().split(",");
    return codings[codings.length - 1].trim() === "chunked" ? { kind: "chunked" } : { kind: "close" };
  }
  const declared = headers.get("content-length");
  if (declared === null) return { kind: "close" };
  // Repeated headers arrive joined ("10, 10"): one length said several times is still one length.
  const lengths = new Set(declared.split(",").map((part) => part.trim()));
  const [only] = lengths;
  if (lengths.size !== 1 || !/^\d{1,15}$/.test(only)) {
    throw new WireError(`the response's Content-Length is not one length: ${JSON.stringify(declared.slice(0, 60))}`);
  }
  return { kind: "length", length: Number(only) };
}

/** Adds a header, leaving out one the Headers class refuses (a name with spaces, a value with a NUL). */
function appendHeader(headers: Headers, name: string, value: string): void {
  try {
    headers.append(name, value);
  } catch {
    // A header no client could represent is dropped rather than failing the whole page, as browsers do.
  }
}

/** Bytes as Latin-1 text: every byte one character, as HTTP heads are read. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = "";
  for (let at = start; at < end; at += 4096) {
    text += String.fromCharCode.apply(null, bytes.subarray(at, Math.min(end, at + 4096)) as unknown as number[]);
  }
  return text;
}

/** A buffer that grows by doubling, for bodies whose size is not known up front. */
class Grower {
  #buffer: Uint8Array;
  size = 0;

  constructor(initial: number) {
    this.#buffer = new Uint8Array(Math.max(initial, 1024));
  }

  push(bytes: Uint8Array): void {
    if (this.size + bytes.length > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.size + bytes.length));
      grown.set(this.#buffer.subarray(0, this.size));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.size);
    this.size += bytes.length;
  }

  /** The bytes pushed, in a buffer of their own size when the spare room is worth a copy to give back. */
  bytes(): Uint8Array {
    if (this.size === this.#buffer.length) return this.#buffer;
    if (this.#buffer.length - this.size < 4096) return this.#buffer.subarray(0, this.size);
    return this.#buffer.slice(0, this.size);
  }
}
