/**
 * A web `Response` (from a runtime's fetch) as an {@link HttpResponse}, its body read into one right-sized buffer.
 *
 * Why not read the stream as it comes: Deno's fetch hands out each chunk as a view on a fresh 64 KB buffer, so a
 * chunk kept as the body (the usual case for a page of a few KB) holds 64 KB until the collector runs, and a crawl at
 * 2,000 pages a second has thousands of them waiting. `arrayBuffer()` takes Deno's fast path instead (one read of
 * the whole body into a buffer of its own size), which is safe to use whenever the body cannot grow past what the
 * headers say: no Content-Encoding (the runtime would decode it, to any size) and a Content-Length within the limit.
 */
import type { HttpResponse } from "./types.ts";
import { HeaderList } from "./header_list.ts";

/** The declared length of an unencoded body, or undefined when the body's size is not known in advance. */
function plainLength(headers: Headers): number | undefined {
  if (headers.has("content-encoding")) return undefined;
  const declared = Number(headers.get("content-length") ?? NaN);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/**
 * Reads a stream to its end into one buffer, or returns undefined (cancelling the stream) once more than `limit`
 * bytes have arrived. Errors of the stream itself (network, abort) propagate unchanged.
 */
export async function readStreamWithin(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  // One chunk that fills its own buffer is kept as it is; anything else is copied into a buffer of the body's size,
  // so no larger buffer behind a view outlives the read.
  if (chunks.length === 1 && chunks[0].byteLength === chunks[0].buffer.byteLength) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Wraps a fetch Response; its body may have been decoded by the runtime, so it is never `asSent`. */
export function fromWebResponse(response: Response): HttpResponse {
  return {
    status: response.status,
    // A copy: fetch's own headers cannot be changed.
    headers: new HeaderList(response.headers),
    asSent: false,
    bytes: async (limit) => {
      const length = plainLength(response.headers);
      if (length !== undefined && length <= limit) return new Uint8Array(await response.arrayBuffer());
      return await readStreamWithin(response.body, limit);
    },
    cancel: async () => {
      await response.body?.cancel().catch(() => {});
    },
  };
}
