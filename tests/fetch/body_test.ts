import assert from "node:assert/strict";
import { deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { FetchError } from "../../src/errors.ts";
import { decodeBody, readLimitedBody } from "../../src/fetch/body.ts";

const TEXT = "x^ a body that happens to start like a zlib header, and some more text. ".repeat(10);
const bytes = (text: string) => new TextEncoder().encode(text);
const decode = (body: Uint8Array) => new TextDecoder().decode(body);

Deno.test("a body still deflate-encoded is decoded, zlib-wrapped or raw when its length shows it is as sent", () => {
  const wrapped = new Uint8Array(deflateSync(bytes(TEXT)));
  const headers = new Headers({ "content-encoding": "deflate" });
  assert.equal(decode(decodeBody(wrapped, headers, 1e6, "u")), TEXT);
  assert.equal(headers.get("content-encoding"), null);
  const raw = new Uint8Array(deflateRawSync(bytes(TEXT)));
  const rawHeaders = new Headers({ "content-encoding": "deflate", "content-length": String(raw.byteLength) });
  assert.equal(decode(decodeBody(raw, rawHeaders, 1e6, "u")), TEXT);
});

Deno.test("a body the runtime already decoded is left as it is", () => {
  const plain = bytes(TEXT);
  const headers = new Headers({ "content-encoding": "gzip", "content-length": "120" });
  assert.equal(decode(decodeBody(plain, headers, 1e6, "u")), TEXT);
  assert.equal(headers.get("content-encoding"), null);
  const brHeaders = new Headers({ "content-encoding": "br" });
  assert.equal(decode(decodeBody(plain, brHeaders, 1e6, "u")), TEXT);
  // "x^" looks like a zlib header; inflating fails, so the text is kept.
  const deflateHeaders = new Headers({ "content-encoding": "deflate" });
  assert.equal(decode(decodeBody(plain, deflateHeaders, 1e6, "u")), TEXT);
});

Deno.test("an unknown coding leaves body and headers alone", () => {
  const headers = new Headers({ "content-encoding": "zstd" });
  const body = bytes("opaque");
  assert.equal(decodeBody(body, headers, 1e6, "u"), body);
  assert.equal(headers.get("content-encoding"), "zstd");
});

Deno.test("decoding past the limit fails with too_large", () => {
  const bomb = new Uint8Array(gzipSync(new Uint8Array(1_000_000)));
  assert.throws(
    () => decodeBody(bomb, new Headers({ "content-encoding": "gzip" }), 10_000, "u"),
    (error: unknown) => error instanceof FetchError && error.reason === "too_large",
  );
});

Deno.test("reading a stream stops once it passes the limit", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new Uint8Array(1000));
    },
  });
  await assert.rejects(
    readLimitedBody(stream, 4500, "u"),
    (error: unknown) => error instanceof FetchError && error.reason === "too_large",
  );
  assert.ok(pulled < 10, `pulled ${pulled} chunks of an endless stream`);
  const whole = await readLimitedBody(new Response("abc").body, 3, "u");
  assert.equal(decode(whole), "abc");
});
