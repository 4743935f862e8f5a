/**
 * An {@link HttpClient} on node:http and node:https, with keep-alive agents of its own. Node's crawls go through it
 * (its fetch took about three times the CPU of node:http for the same pages, and held more memory: see
 * docs/design/engine.md, "The HTTP client"), and on both runtimes it is what reaches a port on the Fetch standard's
 * bad-port list, which node:http does not refuse (any_port_fetch.ts).
 *
 * The body is read straight from the socket's chunks into one buffer of the declared length (or, without one, the
 * chunks joined once at the end), as the server sent it: decompression is src/fetch/body.ts's, told so by `asSent`.
 */
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { HttpClient, HttpRequest, HttpResponse } from "./types.ts";
import { HeaderList } from "./header_list.ts";

/** Statuses whose responses have no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function headersOf(message: IncomingMessage): Headers {
  const headers = new HeaderList();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return headers;
}

/** Reads a response's body into one buffer, or undefined past `limit` (the connection is then dropped). */
function readWithin(message: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(message.headers["content-length"] ?? NaN);
    // Sized up front when the length is known: the chunks are copied in as they come and dropped at once.
    let out = Number.isSafeInteger(declared) && declared >= 0 && declared <= limit ? new Uint8Array(declared) : null;
    const chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    message.on("data", (chunk: Uint8Array) => {
      if (over) return;
      if (size + chunk.byteLength > limit) {
        // Settled first: destroying the message emits "aborted" at once on Deno.
        over = true;
        resolve(undefined);
        message.destroy();
        return;
      }
      if (out && size + chunk.byteLength <= out.byteLength) out.set(chunk, size);
      else {
        if (out) chunks.push(out.subarray(0, size)); // more than declared: join at the end instead
        out = null;
        chunks.push(chunk);
      }
      size += chunk.byteLength;
    });
    message.once("end", () => {
      if (out) return resolve(size === out.byteLength ? out : out.subarray(0, size));
      if (chunks.length === 1) return resolve(chunks[0]);
      const joined = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        joined.set(chunk, offset);
        offset += chunk.byteLength;
      }
      resolve(joined);
    });
    message.once("error", (error) => over || reject(error));
    message.once("aborted", () => over || reject(new Error("the connection closed before the body ended (aborted)")));
  });
}

function toHttpResponse(message: IncomingMessage): HttpResponse {
  const status = message.statusCode ?? 0;
  const empty = NULL_BODY.has(status);
  if (empty) message.resume();
  return {
    status,
    headers: headersOf(message),
    protocol: message.httpVersion === "2.0" ? "h2" : `http/${message.httpVersion}`,
    asSent: true,
    bytes: (limit) => empty ? Promise.resolve(new Uint8Array()) : readWithin(message, limit),
    cancel: () => {
      message.destroy();
      return Promise.resolve();
    },
  };
}

/** Sends one request through `agent` (undefined: a connection of its own, closed after). */
function send(url: URL, init: HttpRequest, agent: HttpAgent | undefined): Promise<HttpResponse> {
  const start = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = {};
  init.headers.forEach((value, name) => headers[name] = value);
  return new Promise<HttpResponse>((resolve, reject) => {
    const signal = init.signal;
    if (signal?.aborted) return reject(signal.reason);
    const request = start(url, { method: init.method, headers, agent }, (message) => {
      // Kept until the body is read or dropped, so that an abort (the timeout) also stops a body still arriving.
      message.once("close", () => signal?.removeEventListener("abort", onAbort));
      resolve(toHttpResponse(message));
    });
    const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    request.end(init.body);
  });
}

/** A client with keep-alive agents for http: and https:, or with none (`keepAlive: false`: one connection each). */
export function nodeHttpClient(options: { keepAlive: boolean } = { keepAlive: true }): HttpClient {
  const http = options.keepAlive ? new HttpAgent({ keepAlive: true }) : undefined;
  const https = options.keepAlive ? new HttpsAgent({ keepAlive: true }) : undefined;
  return {
    fetch: (url, init) => send(url, init, url.protocol === "https:" ? https : http),
    close: () => {
      http?.destroy();
      https?.destroy();
    },
  };
}
