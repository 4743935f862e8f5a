/**
 * The DevTools protocol over a pipe, as Chromium speaks it with `--remote-debugging-pipe`: it reads commands from
 * its file descriptor 3 and writes answers and events to 4, each message JSON ended by a NUL byte. A pipe rather
 * than a port: nothing else on the machine can connect to the browser, and when the crawl's process dies, however
 * it dies, the pipe closes and Chromium exits by itself.
 */
import { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
import { setImmediate } from "node:timers";

/** puppeteer's ConnectionTransport, which `puppeteer.connect({ transport })` takes. */
export interface Transport {
  send(message: string): void;
  close(): void;
  onmessage?: (message: string) => void;
  onclose?: () => void;
}

/**
 * Ids of the commands Netweir sends itself (see {@link PipeTransport.command}), far above puppeteer's, which count up
 * from 1: their answers are kept from puppeteer, which would not know them.
 */
const OWN_IDS_FROM = 2_000_000_000;

export class PipeTransport implements Transport {
  readonly #out: Writable;
  #ownId = OWN_IDS_FROM;
  readonly #in: Readable;
  #pending: Buffer[] = [];
  #closed = false;
  onmessage?: (message: string) => void;
  onclose?: () => void;

  constructor(toBrowser: Writable, fromBrowser: Readable) {
    this.#out = toBrowser;
    this.#in = fromBrowser;
    fromBrowser.on("data", (chunk: Buffer) => this.#read(chunk));
    fromBrowser.on("close", () => this.#end());
    fromBrowser.on("error", () => this.#end());
    // A browser that died mid-write: the next send fails, and the close event says the rest.
    toBrowser.on("error", () => this.#end());
  }

  send(message: string): void {
    if (this.#closed) return;
    this.#out.write(message);
    this.#out.write("\0");
  }

  /**
   * Sends a command of the browser's own session straight away, ahead of anything puppeteer would send next, and
   * forgets its answer. For what must happen inside one of puppeteer's callbacks (closing a popup before puppeteer
   * lets it start loading), where puppeteer has no call to make.
   */
  command(method: string, params: Record<string, unknown>): void {
    this.send(JSON.stringify({ id: this.#ownId++, method, params }));
  }

  close(): void {
    this.#closed = true;
    this.#in.destroy();
    this.#out.destroy();
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.#pending.push(chunk.subarray(start, end));
      const message = Buffer.concat(this.#pending).toString("utf8");
      this.#pending = [];
      start = end + 1;
      if (message.startsWith(`{"id":`) && Number(/^\{"id":(\d+)/.exec(message)?.[1]) >= OWN_IDS_FROM) continue;
      // Each message in a task of its own (setImmediate, as puppeteer's own pipe transport does), not a microtask:
      // puppeteer answers a `request` event through a chain of promises, and only once it has run does the page
      // wait for that request's end. Delivered as microtasks, the request's end (a resource refused while paused, a
      // small file already loaded) came first, and the page's count of requests in flight kept a subscription, the
      // request and three listeners for it forever: about one a page on rustdoc, 334 after 300 pages.
      setImmediate(() => this.onmessage?.(message));
    }
    if (start < chunk.length) this.#pending.push(chunk.subarray(start));
  }

  #end(): void {
    if (this.#closed && this.onclose === undefined) return;
    this.#closed = true;
    const onclose = this.onclose;
    this.onclose = undefined;
    queueMicrotask(() => onclose?.());
  }
}
