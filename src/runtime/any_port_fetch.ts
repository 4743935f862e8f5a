/**
 * Fetching from a port on the Fetch standard's "bad port" list (6000, 6667, 10080, ...). Browsers block those
 * ports to stop web pages from talking to mail, IRC or X11 servers, and Deno's and Node's fetch block them too; a
 * crawler has no page script to fear and Scrapy crawls them, so for those ports the request goes out through
 * node:http / node:https instead, which both runtimes provide and neither restricts. Only what the downloader uses is
 * supported: method, headers, a string or byte body, an abort signal, and redirects left to the caller.
 */
import { type IncomingMessage, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** The Fetch standard's bad ports (https://fetch.spec.whatwg.org/#port-blocking). */
const BAD_PORTS = new Set([
  1,
  7,
  9,
  11,
  13,
  15,
  17,
  19,
  20,
  21,
  22,
  23,
  25,
  37,
  42,
  43,
  53,
  69,
  77,
  79,
  87,
  95,
  101,
  102,
  103,
  104,
  109,
  110,
  111,
  113,
  115,
  117,
  119,
  123,
  135,
  137,
  139,
  143,
  161,
  179,
  389,
  427,
  465,
  512,
  513,
  514,
  515,
  526,
  530,
  531,
  532,
  540,
  548,
  554,
  556,
  563,
  587,
  601,
  636,
  989,
  990,
  993,
  995,
  1719,
  1720,
  1723,
  2049,
  3659,
  4045,
  4190,
  5060,
  5061,
  6000,
  6566,
  6665,
  6666,
  6667,
  6668,
  6669,
  6679,
  6697,
  10080,
]);

/** Whether the runtime's fetch would refuse this URL for its port. */
export function onBadPort(url: URL): boolean {
  return url.port !== "" && BAD_PORTS.has(Number(url.port));
}

/** Statuses whose responses have no body (a Response refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function toResponse(message: IncomingMessage): Response {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  const status = message.statusCode ?? 0;
  const body = NULL_BODY.has(status) ? null : Readable.toWeb(message) as ReadableStream<Uint8Array>;
  if (body === null) message.resume();
  return new Response(body, { status, statusText: message.statusMessage ?? "", headers });
}

/** A fetch through node:http(s), for a URL on a bad port. The body comes as sent (not decompressed). */
export function fetchAnyPort(url: URL, init: RequestInit): Promise<Response> {
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string | string[]> = {};
  new Headers(init.headers).forEach((value, name) => headers[name] = value);
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
    return Promise.reject(new TypeError("a request to a blocked port takes a string or byte body only"));
  }
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    const request = send(url, { method: init.method ?? "GET", headers }, (message) => resolve(toResponse(message)));
    const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("close", () => signal?.removeEventListener("abort", onAbort));
    request.on("error", reject);
    request.end(body ?? undefined);
  });
}
