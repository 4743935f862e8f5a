/**
 * The HTTP clients behind the downloader read bodies each their own way (Deno's fetch through `arrayBuffer()` or its
 * stream, node:http straight off the socket, as sent): each way gives the same decoded bytes, with and without a
 * Content-Length, in every coding, and each stops at the body limit.
 */
import assert from "node:assert/strict";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { decodeBody, readBody } from "../../src/fetch/body.ts";
import { FetchError } from "../../src/errors.ts";
import { type HttpClient, runtime } from "../../src/runtime/mod.ts";
import { nodeHttpClient } from "../../src/runtime/node_http.ts";
import { fromWebResponse } from "../../src/runtime/web_response.ts";

const TEXT = "a page of text, long enough to come in more than one chunk. ".repeat(3000);
const PLAIN = new Uint8Array(new TextEncoder().encode(TEXT));
const ENCODED: Record<string, Uint8Array<ArrayBuffer>> = {
  identity: PLAIN,
  gzip: new Uint8Array(gzipSync(PLAIN)),
  br: new Uint8Array(brotliCompressSync(PLAIN)),
  deflate: new Uint8Array(deflateSync(PLAIN)),
};

/** Serves /CODING (with a Content-Length) and /CODING/chunked (without one: a stream in several chunks). */
async function serve() {
  return await runtime.listen((request) => {
    const [, coding, chunked] = new URL(request.url).pathname.split("/");
    const bytes = ENCODED[coding];
    const headers = new Headers({ "content-type": "text/plain" });
    if (coding !== "identity") headers.set("content-encoding", coding);
    if (!chunked) return new Response(bytes, { headers });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 4096) controller.enqueue(bytes.slice(at, at + 4096));
        controller.close();
      },
    });
    return new Response(body, { headers });
  }, { hostname: "127.0.0.1", port: 0 });
}

async function get(client: HttpClient, url: string, limit: number): Promise<Uint8Array> {
  const response = await client.fetch(new URL(url), { method: "GET", headers: new Headers() });
  return decodeBody(await readBody(response, limit, url), response.headers, limit, url, response.asSent);
}

const clients: Array<[string, () => HttpClient]> = [
  ["the runtime's default client", () => runtime.httpClient({})],
  ["node:http", () => nodeHttpClient()],
];

for (const [name, make] of clients) {
  Deno.test(`${name} gives the decoded body, in every coding, with and without a Content-Length`, async () => {
    const server = await serve();
    const client = make();
    try {
      for (const coding of Object.keys(ENCODED)) {
        for (const path of [coding, `${coding}/chunked`]) {
          const body = await get(client, `http://127.0.0.1:${server.port}/${path}`, 10_000_000);
          assert.equal(new TextDecoder().decode(body), TEXT, `${name}: /${path}`);
        }
      }
    } finally {
      client.close();
      await server.close();
    }
  });

  Deno.test(`${name} stops reading a body at the limit`, async () => {
    const server = await serve();
    const client = make();
    try {
      for (const path of ["identity/chunked", "gzip/chunked"]) {
        await assert.rejects(
          get(client, `http://127.0.0.1:${server.port}/${path}`, 10_000),
          (error: unknown) => error instanceof FetchError && error.reason === "too_large",
          `${name}: /${path}`,
        );
      }
    } finally {
      client.close();
      await server.close();
    }
  });
}

Deno.test("a web Response read through arrayBuffer() or through its stream gives the same bytes", async () => {
  const sized = fromWebResponse(new Response(PLAIN, { headers: { "content-length": String(PLAIN.length) } }));
  const streamed = fromWebResponse(new Response(new Blob([PLAIN]).stream()));
  assert.deepEqual(await sized.bytes(1e7), PLAIN);
  assert.deepEqual(await streamed.bytes(1e7), PLAIN);
  const over = fromWebResponse(new Response(new Blob([PLAIN]).stream()));
  assert.equal(await over.bytes(1000), undefined);
});
