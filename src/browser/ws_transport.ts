/**
 * The DevTools protocol over a WebSocket, for a browser running elsewhere (`browser_endpoint`). puppeteer has a
 * WebSocket transport of its own, but Netweir needs what PipeTransport gives: a command sent outside puppeteer (to
 * close a popup from inside puppeteer's target filter) whose answer puppeteer never sees. Built on the WebSocket that
 * Deno and Node 22 both have.
 */
import type { Transport } from "./pipe_transport.ts";

/** Ids of Netweir's own commands, far above puppeteer's (which count up from 1), as in PipeTransport. */
const OWN_IDS_FROM = 2_000_000_000;

export class WebSocketTransport implements Transport {
  readonly #socket: WebSocket;
  #ownId = OWN_IDS_FROM;
  #closed = false;
  onmessage?: (message: string) => void;
  onclose?: () => void;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => {
      const message = String(event.data);
      if (message.startsWith(`{"id":`) && Number(/^\{"id":(\d+)/.exec(message)?.[1]) >= OWN_IDS_FROM) return;
      this.onmessage?.(message);
    };
    socket.onclose = () => this.#end();
    socket.onerror = () => this.#end();
  }

  /** Opens a connection to `address`; rejects when it cannot be opened within `timeoutMs`. */
  static open(address: string, timeoutMs: number): Promise<WebSocketTransport> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(address);
      const timer = setTimeout(() => {
        socket.close();
        reject(new Error("no answer in time"));
      }, timeoutMs);
      socket.onopen = () => {
        clearTimeout(timer);
        resolve(new WebSocketTransport(socket));
      };
      socket.onerror = socket.onclose = () => {
        clearTimeout(timer);
        reject(new Error("the connection was refused or closed"));
      };
    });
  }

  send(message: string): void {
    if (this.#closed || this.#socket.readyState !== WebSocket.OPEN) return;
    this.#socket.send(message);
  }

  /** Sends a command of the browser's own session at once and forgets its answer (see PipeTransport.command). */
  command(method: string, params: Record<string, unknown>): void {
    this.send(JSON.stringify({ id: this.#ownId++, method, params }));
  }

  close(): void {
    this.#closed = true;
    this.#socket.close();
    this.#end();
  }

  #end(): void {
    this.#closed = true;
    const onclose = this.onclose;
    this.onclose = undefined;
    if (onclose) queueMicrotask(onclose);
  }
}
