/**
 * The exchanges an archive keeps, one per HTTP request sent (each redirect hop, then the final answer), and their
 * HTTP/1.x-style messages as WARC records hold them (an exchange over HTTP/2 written with the version `HTTP/2` in its
 * request and status lines, as HAR's httpVersion says it: HTTP/2 has no text form of its own to keep). Bodies are as the crawler read them, decompressed: the
 * Content-Encoding and Transfer-Encoding headers are left out and Content-Length is that of the body kept, so each
 * message is well formed on its own.
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import type { FetchedResponse } from "../spider/response.ts";

/** One request sent and the answer it got. */
export interface ArchivedExchange {
  url: string;
  method: string;
  /** Request headers as sent, credentials redacted. */
  requestHeaders: Array<[string, string]>;
  requestBody: string | undefined;
  status: number;
  /** Response headers describing the body kept (see the file's comment). */
  responseHeaders: Array<[string, string]>;
  /** Every Set-Cookie header of the answer, as received. */
  setCookies: string[];
  body: Uint8Array;
  /** Epoch ms when the request was sent, and ms until the answer was read. */
  at: number;
  millis: number;
  /** The version as HAR and the message lines write it: `HTTP/2`, `HTTP/1.1` (also when the client could not tell). */
  httpVersion: string;
}

/** An ALPN protocol name as an HTTP version (`h2` is `HTTP/2`); HTTP/1.1 when not known. */
export function httpVersionOf(protocol: string | undefined): string {
  if (protocol === "h2" || protocol === "h2c") return "HTTP/2";
  if (protocol === "http/1.0") return "HTTP/1.0";
  return "HTTP/1.1";
}

/**
 * Request headers whose values are credentials: archived as "[redacted]". An archive is a file that gets shared;
 * a login in it would outlive the crawl.
 */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization"]);

/** Headers that described the bytes on the wire rather than the body archived. */
const WIRE_HEADERS = new Set(["content-encoding", "transfer-encoding", "content-length"]);

function redacted(headers: Headers | undefined): Array<[string, string]> {
  return [...(headers ?? [])].map(([name, value]) =>
    SECRET_HEADERS.has(name.toLowerCase()) ? [name, "[redacted]"] : [name, value]
  );
}

function bodyHeaders(headers: Headers, body: Uint8Array): Array<[string, string]> {
  const kept = [...headers].filter(([name]) => !WIRE_HEADERS.has(name.toLowerCase()));
  kept.push(["content-length", String(body.byteLength)]);
  return kept;
}

/** The exchanges behind one response: each redirect hop, then the last request and its answer. */
export function exchangesOf(response: FetchedResponse, requestBody: string | undefined): ArchivedExchange[] {
  const millis = Math.round(response.latency * 1000);
  const end = Date.now();
  const hops = (response.hops ?? []).map((hop): ArchivedExchange => ({
    url: hop.url,
    method: hop.sent.method,
    requestHeaders: redacted(hop.sent.headers),
    requestBody: hop.sent.body,
    status: hop.status,
    responseHeaders: bodyHeaders(hop.headers, hop.body),
    setCookies: hop.headers.getSetCookie(),
    body: hop.body,
    at: hop.at,
    millis: 0,
    httpVersion: httpVersionOf(hop.protocol),
  }));
  // Each hop took until the next one was sent; the last request was sent after the last hop's answer.
  for (let i = 0; i < hops.length; i++) hops[i].millis = Math.max(0, (hops[i + 1]?.at ?? end) - hops[i].at);
  const lastAt = hops.length > 0 ? hops[hops.length - 1].at + hops[hops.length - 1].millis : end - millis;
  const last: ArchivedExchange = {
    url: response.url,
    method: response.sent?.method ?? response.request.method,
    requestHeaders: redacted(response.sent?.headers),
    requestBody,
    status: response.status,
    responseHeaders: bodyHeaders(response.headers, response.body),
    setCookies: response.headers.getSetCookie(),
    body: response.body,
    at: Math.min(lastAt, end),
    millis: Math.max(0, end - Math.min(lastAt, end)),
    httpVersion: httpVersionOf(response.protocol),
  };
  if (hops.length === 0) last.millis = millis;
  return [...hops, last];
}

const encoder = new TextEncoder();

/** The request, as an HTTP/1.1-style message (with HTTP/2 as its version when it went over HTTP/2). */
export function requestMessage(exchange: ArchivedExchange): Uint8Array {
  const url = new URL(exchange.url);
  const headers = [...exchange.requestHeaders];
  if (!headers.some(([name]) => name.toLowerCase() === "host")) headers.unshift(["host", url.host]);
  const head = `${exchange.method} ${url.pathname}${url.search} ${exchange.httpVersion}\r\n` +
    headers.map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n";
  return Buffer.concat([encoder.encode(head), encoder.encode(exchange.requestBody ?? "")]);
}

/** The answer, as an HTTP/1.1-style message with its decompressed body. */
export function responseMessage(exchange: ArchivedExchange): { message: Uint8Array; payloadOffset: number } {
  const head = encoder.encode(
    `${exchange.httpVersion} ${exchange.status} ${reasonPhrase(exchange.status)}\r\n` +
      exchange.responseHeaders.map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n",
  );
  return { message: Buffer.concat([head, exchange.body]), payloadOffset: head.byteLength };
}

/**
 * node:http's table of reason phrases, required when first asked for: importing node:http as a module on Node makes
 * it load undici (its ESM face reads every export), about 35 ms and 13 MB of every crawl, archives or not.
 */
let statusCodes: Record<number, string | undefined> | undefined;

export function reasonPhrase(status: number): string {
  statusCodes ??= (createRequire(import.meta.url)("node:http") as typeof import("node:http")).STATUS_CODES;
  return statusCodes[status] ?? "";
}
