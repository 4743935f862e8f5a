import assert from "node:assert/strict";
import { COMPRESSED_PAGE } from "../helpers/fixture_routes.ts";
import { FetchError } from "../../src/errors.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { downloaderWith, echoOf, textOf } from "./support.ts";

const isFetchError = (reason: string) => (error: unknown) => error instanceof FetchError && error.reason === reason;

Deno.test("headers layer default headers, then the user agent, then the request's own, whatever their case", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({
    defaultHeaders: { "Accept": "text/html", "X-Default": "default", "User-Agent": "from-defaults" },
    userAgent: "netweir-test/1.0",
  });
  try {
    const request = new Request({ url: site.url + "echo", headers: { "x-default": "mine", "ACCEPT": "text/plain" } });
    const { headers } = echoOf(await downloader.fetch(request));
    assert.equal(headers["user-agent"], "netweir-test/1.0");
    assert.equal(headers["x-default"], "mine");
    assert.equal(headers["accept"], "text/plain");
    assert.equal(headers["accept-encoding"], "gzip, deflate, br");
    const own = echoOf(await downloader.fetch(new Request({ url: site.url + "echo", headers: { "user-agent": "x" } })));
    assert.equal(own.headers["user-agent"], "x");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("non-2xx statuses are responses, not errors", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const response = await downloader.fetch(new Request(site.url + "status/503?retry_after=7"));
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "7");
    assert.equal(textOf(response), "status 503\n");
    assert.equal(response.source, "network");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a response that never comes fails with reason timeout after the request's timeout", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ timeout: 60 });
  try {
    await assert.rejects(
      downloader.fetch(new Request({ url: site.url + "hang", timeout: 0.2 })),
      isFetchError("timeout"),
    );
    await assert.rejects(
      downloader.fetch(new Request({ url: site.url + "hang", meta: { download_timeout: 0.2 } })),
      isFetchError("timeout"),
    );
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("the timeout setting applies when the request has none, and a quick answer beats it", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ timeout: 0.3 });
  try {
    await assert.rejects(downloader.fetch(new Request(site.url + "hang")), isFetchError("timeout"));
    const quick = await downloader.fetch(new Request(site.url + "slow?ms=10"));
    assert.equal(quick.status, 200);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("latency counts the wait for the server's answer", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const response = await downloader.fetch(new Request(site.url + "slow?ms=200"));
    // A lower bound only: the server itself waited 200 ms before answering.
    assert.ok(response.latency >= 0.2, `latency ${response.latency}`);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("aborting the signal stops a fetch with reason aborted", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  const controller = new AbortController();
  try {
    const pending = downloader.fetch(new Request(site.url + "hang"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, isFetchError("aborted"));
    await assert.rejects(
      downloader.fetch(new Request(site.url + "echo"), { signal: controller.signal }),
      isFetchError("aborted"),
    );
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("one signal shared by many fetches aborts every one in flight, and none that already ended", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  const controller = new AbortController();
  try {
    const done = await downloader.fetch(new Request(site.url + "echo"), { signal: controller.signal });
    const hanging = Array.from(
      { length: 5 },
      (_, i) => downloader.fetch(new Request(`${site.url}hang?${i}`), { signal: controller.signal }),
    );
    // One that ends before the abort, on the same signal, still reads whole afterwards.
    const ended = await downloader.fetch(new Request(site.url + "echo?after"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    for (const pending of hanging) await assert.rejects(pending, isFetchError("aborted"));
    assert.equal(done.status, 200);
    assert.equal(ended.status, 200);
    assert.match(textOf(ended), /after/);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a server that is not there fails with reason network", async () => {
  const site = await startFixtureSite();
  const url = site.url + "echo";
  await site.close();
  const downloader = downloaderWith();
  try {
    await assert.rejects(downloader.fetch(new Request(url)), isFetchError("network"));
  } finally {
    downloader.close();
  }
});

for (const [path, coding] of [["gzip", "gzip"], ["deflate", "deflate"], ["brotli", "br"]]) {
  Deno.test(`a ${coding}-compressed body arrives decoded`, async () => {
    const site = await startFixtureSite();
    const downloader = downloaderWith();
    try {
      const response = await downloader.fetch(new Request(site.url + path));
      assert.equal(textOf(response), COMPRESSED_PAGE);
      assert.equal(response.headers.get("content-encoding"), null);
      assert.equal(site.requests[0].headers.get("accept-encoding"), "gzip, deflate, br");
    } finally {
      downloader.close();
      await site.close();
    }
  });
}

Deno.test("a body over maxBodySize fails with reason too_large, with or without a Content-Length", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ maxBodySize: 100_000 });
  try {
    const fits = await downloader.fetch(new Request(site.url + "big?bytes=100000"));
    assert.equal(fits.body.byteLength, 100_000);
    await assert.rejects(downloader.fetch(new Request(site.url + "big?bytes=100001")), isFetchError("too_large"));
    await assert.rejects(
      downloader.fetch(new Request(site.url + "big?bytes=5000000&chunked=1")),
      isFetchError("too_large"),
    );
    const chunkedFits = await downloader.fetch(new Request(site.url + "big?bytes=90000&chunked=1"));
    assert.equal(chunkedFits.body.byteLength, 90_000);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a decoded body over maxBodySize fails too", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ maxBodySize: 500 });
  try {
    for (const path of ["gzip", "deflate", "brotli"]) {
      await assert.rejects(downloader.fetch(new Request(site.url + path)), isFetchError("too_large"), path);
    }
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a closed downloader refuses to fetch", async () => {
  const downloader = downloaderWith();
  downloader.close();
  await assert.rejects(downloader.fetch(new Request("http://127.0.0.1:9/")), isFetchError("closed"));
});

Deno.test("the timeout covers the body too: headers on time and a body that stalls still time out", async () => {
  // The fixture site's slow routes delay the headers; this server sends headers and a first chunk, then stalls.
  const stalled: ReadableStreamDefaultController<Uint8Array>[] = [];
  const listener = await runtime.listen(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("first chunk "));
          stalled.push(controller);
        },
      }),
    ), { hostname: "127.0.0.1", port: 0 });
  const downloader = downloaderWith({ timeout: 0.3 });
  try {
    await assert.rejects(
      downloader.fetch(new Request(`http://127.0.0.1:${listener.port}/`)),
      isFetchError("timeout"),
    );
  } finally {
    downloader.close();
    for (const controller of stalled) {
      try {
        controller.close();
      } catch {
        // Already cancelled by the client going away.
      }
    }
    await listener.close();
  }
});
