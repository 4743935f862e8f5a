/**
 * Turning a response body into decoded bytes within the size limit. The body stream is read chunk by chunk so a
 * response past `maxBodySize` is cut off as soon as it crosses the line, not after it has all been buffered.
 *
 * Decompression: Deno's and Node's fetch both decode gzip and br on their own, Node also decodes deflate, Deno does
 * not (and keeps the Content-Encoding header either way). So whatever arrives still encoded is decoded here, and
 * what the runtime already decoded is left alone; see {@link decodeBody} for how the two are told apart.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from "node:zlib";
import { FetchError } from "../errors.ts";
import type { HttpResponse } from "../runtime/mod.ts";
import { readStreamWithin } from "../runtime/web_response.ts";

/** Content codings the crawler asks for: whatever arrives is decoded by the runtime or by {@link decodeBody}. */
export const ACCEPT_ENCODING = "gzip, deflate, br";

function tooLarge(url: string, limit: number): FetchError {
  return new FetchError("too_large", `response body of ${url} is larger than ${limit} bytes`);
}

/** Refuses a response at once when its Content-Length already says it is over the limit. */
export function checkContentLength(headers: Headers, limit: number, url: string): void {
  const declared = Number(headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(url, limit);
}

/**
 * Reads a body stream to the end, cancelling it and throwing FetchError `too_large` once more than `limit` bytes
 * have arrived. Errors of the stream itself (network, abort) propagate unchanged for the caller to classify.
 */
export async function readLimitedBody(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  url: string,
): Promise<Uint8Array> {
  const bytes = await readStreamWithin(body, limit);
  if (!bytes) throw tooLarge(url, limit);
  return bytes;
}

/** Reads a response's whole body as {@link readLimitedBody} does, the client's own way. */
export async function readBody(response: HttpResponse, limit: number, url: string): Promise<Uint8Array> {
  const bytes = await response.bytes(limit);
  if (!bytes) throw tooLarge(url, limit);
  return bytes;
}

/** A zlib stream header (RFC 1950): deflate method, a window size zlib knows, the check bits right, no dictionary. */
function hasZlibHeader(bytes: Uint8Array): boolean {
  if (bytes.length < 2) return false;
  const [cmf, flg] = bytes;
  return (cmf & 0x0f) === 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 === 0 && (flg & 0x20) === 0;
}

type Decoder = (bytes: Uint8Array, options: { maxOutputLength: number }) => Uint8Array;

/**
 * How to decode one coding when the bytes are still encoded, or undefined when they are not (or it is unknown).
 * `asSent` says the bytes are exactly what the server sent (their length equals Content-Length), which is the only
 * way to recognise a brotli or raw-deflate body: neither has a signature of its own.
 */
function decoderFor(coding: string, bytes: Uint8Array, asSent: boolean): Decoder | undefined {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync : undefined;
    case "deflate":
      // RFC 9110's deflate is zlib-wrapped; some servers send raw deflate, recognisable only when untouched.
      if (hasZlibHeader(bytes)) return inflateSync;
      return asSent ? inflateRawSync : undefined;
    case "br":
      return asSent ? brotliDecompressSync : undefined;
    default:
      return undefined;
  }
}

/**
 * Decodes what the runtime left encoded, innermost coding last, never producing more than `limit` bytes (FetchError
 * `too_large`). When every coding has been dealt with, Content-Encoding and Content-Length are removed from
 * `headers`, since they no longer describe the body. A coding that cannot be decoded leaves body and headers as
 * they came. `sentAsIs` says the client read the bytes exactly as sent (node:http), whatever Content-Length says.
 */
export function decodeBody(
  bytes: Uint8Array,
  headers: Headers,
  limit: number,
  url: string,
  sentAsIs = false,
): Uint8Array {
  const header = headers.get("content-encoding");
  if (!header) return bytes;
  const codings = header.split(",").map((c) => c.trim().toLowerCase()).filter((c) => c && c !== "identity");
  const declared = Number(headers.get("content-length") ?? NaN);
  let body = bytes;
  let asSent = sentAsIs || (Number.isFinite(declared) && declared === bytes.byteLength);
  for (const coding of codings.reverse()) {
    if (!["gzip", "x-gzip", "deflate", "br"].includes(coding)) return bytes;
    const decode = decoderFor(coding, body, asSent);
    if (!decode) continue; // already decoded by the runtime's fetch
    try {
      body = decode(body, { maxOutputLength: limit });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(url, limit);
      // Not actually encoded as labelled: keep the bytes, as browsers would show them.
      return bytes;
    }
    asSent = false;
  }
  headers.delete("content-encoding");
  headers.delete("content-length");
  return body;
}
