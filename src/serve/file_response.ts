/**
 * Serving a job's log or items file, which may still be growing while the job runs. The spec's promise is "you get as
 * much as had been written when you asked": the size is read once, at open, and exactly that many bytes are sent,
 * however much the job writes meanwhile. Byte ranges let a client tail a log (`Range: bytes=-1000`) or fetch only what
 * it has not seen (`Range: bytes=OFFSET-`).
 */
import { type FileHandle, open } from "node:fs/promises";

/** Bytes read from the file at a time. */
const CHUNK_BYTES = 64 * 1024;

/** Inclusive byte positions, as Content-Range counts them. */
interface ByteRange {
  first: number;
  last: number;
}

function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ status: "error", message }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * What a Range header asks of a file of `size` bytes: a range, "unsatisfiable", or undefined to send the whole file.
 * Only a single `bytes=` range is honoured; several ranges, other units and malformed values are ignored, as RFC 9110
 * allows, and get the whole file.
 */
export function parseRange(header: string | null, size: number): ByteRange | "unsatisfiable" | undefined {
  const match = header?.trim().match(/^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i);
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  const [, from, to] = match;
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0) return "unsatisfiable";
    // An empty file has no bytes to put in a 206's Content-Range; the whole (empty) file is the honest answer.
    if (size === 0) return undefined;
    return { first: Math.max(0, size - suffix), last: size - 1 };
  }
  const first = Number(from);
  if (to !== "" && Number(to) < first) return undefined;
  if (first >= size) return "unsatisfiable";
  return { first, last: to === "" ? size - 1 : Math.min(Number(to), size - 1) };
}

/**
 * Serves the file at `path` as it is now: 200 with all of it, 206 for a satisfiable `Range` (`bytes=a-b`, `bytes=a-`,
 * `bytes=-N`), 416 with `Content-Range: bytes *\/SIZE` for one past the end, 404 JSON when there is no such file.
 * A HEAD request gets the same headers and no body. The file is read in chunks as the client takes them, and closed
 * when the body is done, when it is cancelled, or when the request's signal says the client went away.
 */
export async function fileResponse(path: string, request: Request, contentType: string): Promise<Response> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isMissing(error)) return errorResponse(404, "no such file");
    throw error;
  }
  let size: number;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      return errorResponse(404, "no such file");
    }
    size = stat.size;
  } catch (error) {
    await handle.close();
    throw error;
  }

  const headers: Record<string, string> = {
    "content-type": contentType,
    "accept-ranges": "bytes",
    // A log shown in a browser must stay text, whatever a spider logged into it.
    "x-content-type-options": "nosniff",
    // It may grow: a cached copy would hide what was written since.
    "cache-control": "no-cache",
  };
  // If-Range needs a validator to compare; a growing file has none worth trusting, so such a request gets it all.
  const isGet = request.method === "GET" || request.method === "HEAD";
  const range = isGet && !request.headers.has("if-range") ? parseRange(request.headers.get("range"), size) : undefined;
  if (range === "unsatisfiable") {
    await handle.close();
    return errorResponse(416, `the range is past the end of the file (${size} bytes)`, {
      "accept-ranges": "bytes",
      "content-range": `bytes */${size}`,
    });
  }
  const first = range?.first ?? 0;
  const length = range ? range.last - range.first + 1 : size;
  headers["content-length"] = String(length);
  if (range) headers["content-range"] = `bytes ${range.first}-${range.last}/${size}`;
  const status = range ? 206 : 200;
  if (request.method === "HEAD" || length === 0) {
    await handle.close();
    return new Response(request.method === "HEAD" ? null : new Uint8Array(0), { status, headers });
  }
  return new Response(fileStream(handle, first, length, request.signal), { status, headers });
}

/** `length` bytes of the file from `position`, closing the handle exactly once however the stream ends. */
function fileStream(
  handle: FileHandle,
  position: number,
  length: number,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  let left = length;
  let closed: Promise<void> | undefined;
  const close = () => {
    signal.removeEventListener("abort", onAbort);
    closed ??= handle.close().catch(() => {});
    return closed;
  };
  let controller: ReadableStreamDefaultController<Uint8Array>;
  const onAbort = () => {
    void close();
    try {
      controller.error(signal.reason);
    } catch {
      // already closed or errored
    }
  };
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(c) {
      try {
        const buffer = new Uint8Array(Math.min(CHUNK_BYTES, left));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (closed) return; // cancelled while reading
        // Files here only grow; fewer bytes than the size read at open means it was cut short under us.
        if (bytesRead === 0) throw new Error(`the file ended ${left} bytes short of its size at open`);
        position += bytesRead;
        left -= bytesRead;
        c.enqueue(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
        if (left === 0) {
          await close();
          c.close();
        }
      } catch (error) {
        await close();
        c.error(error);
      }
    },
    cancel: close,
  }, { highWaterMark: 0 });
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR";
}
