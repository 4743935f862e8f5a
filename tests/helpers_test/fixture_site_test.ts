import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { get } from "node:http";
import { gunzipSync, inflateSync } from "node:zlib";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { COMPRESSED_PAGE } from "../helpers/fixture_routes.ts";
import { LATIN1_TEXT, linksPageHttpLinks } from "../helpers/fixture_pages.ts";

/** Fetches without following redirects and reads the body, so no response is left open. */
async function fetchText(url: string, init: RequestInit = {}): Promise<{ response: Response; body: string }> {
  const response = await fetch(url, { redirect: "manual", ...init });
  return { response, body: await response.text() };
}

/** The raw bytes and headers of a GET, with no decompression on the way. */
function rawGet(url: string): Promise<{ headers: Record<string, unknown>; body: Uint8Array }> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      const chunks: Uint8Array[] = [];
      response.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      response.on("end", () => resolve({ headers: response.headers, body: new Uint8Array(Buffer.concat(chunks)) }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

Deno.test("the fixture site serves the book shop under /shop/ and logs every request", async () => {
  const site = await startFixtureSite({ books: 30 });
  try {
    const listing = await fetchText(`${site.url}shop/`);
    assert.equal(listing.response.status, 200);
    assert.equal(listing.body.match(/<article class="product_pod">/g)?.length, 20);
    assert.match(listing.body, /<li class="next"><a href="catalogue\/page-2.html">next<\/a><\/li>/);
    const second = await fetchText(`${site.url}shop/catalogue/page-2.html`);
    assert.equal(second.body.match(/<article class="product_pod">/g)?.length, 10);
    assert.doesNotMatch(second.body, /class="next"/);
    const href = /<h3><a href="([^"]+)"/.exec(second.body)![1];
    const book = await fetchText(new URL(href, `${site.url}shop/catalogue/page-2.html`).href);
    assert.equal(book.response.status, 200);
    assert.match(book.body, /<th>UPC<\/th><td>[0-9a-f]{16}<\/td>/);
    assert.equal((await fetchText(`${site.url}shop/catalogue/page-3.html`)).response.status, 404);
    assert.equal(site.hits("/shop/"), 1);
    assert.equal(site.requests.length, 4);
    assert.equal(site.requests[0].method, "GET");
    assert.equal(site.requests[0].path, "/shop/");
    assert.equal(typeof site.requests[0].headers.get("user-agent"), "string");
  } finally {
    await site.close();
  }
});

Deno.test("robots.txt allows everything by default, serves the given text, and is missing when null", async () => {
  const open = await startFixtureSite();
  const custom = await startFixtureSite({ robots: "User-agent: *\nDisallow: /private\n" });
  const missing = await startFixtureSite({ robots: null });
  try {
    assert.equal((await fetchText(`${open.url}robots.txt`)).body, "User-agent: *\nDisallow:\n");
    assert.equal((await fetchText(`${custom.url}robots.txt`)).body, "User-agent: *\nDisallow: /private\n");
    assert.equal((await fetchText(`${missing.url}robots.txt`)).response.status, 404);
  } finally {
    await Promise.all([open.close(), custom.close(), missing.close()]);
  }
});

Deno.test("redirect routes chain, loop, go anywhere, and turn a POST into a GET with 303", async () => {
  const site = await startFixtureSite();
  try {
    let location = "/redirect/3";
    const seen: string[] = [];
    for (let hop = 0; hop < 3; hop++) {
      const { response } = await fetchText(site.origin + location);
      assert.equal(response.status, 302);
      location = response.headers.get("location")!;
      seen.push(location);
    }
    assert.deepEqual(seen, ["/redirect/2", "/redirect/1", "/echo"]);
    const followed = await fetch(`${site.url}redirect/2`);
    assert.equal(followed.url, `${site.url}echo`);
    assert.equal((await followed.json()).path, "/echo");

    const loop = await fetchText(`${site.url}redirect-loop`);
    assert.equal(loop.response.headers.get("location"), "/redirect-loop");
    const anywhere = await fetchText(`${site.url}redirect-to?url=${encodeURIComponent("http://other.example/x")}`);
    assert.equal(anywhere.response.status, 301);
    assert.equal(anywhere.response.headers.get("location"), "http://other.example/x");
    const temporary = await fetchText(`${site.url}redirect-to?url=/echo&status=307`);
    assert.equal(temporary.response.status, 307);

    const posted = await fetch(`${site.url}see-other`, { method: "POST", body: "a=1" });
    const echoed = await posted.json();
    assert.equal(echoed.method, "GET");
    assert.equal(echoed.path, "/echo");
  } finally {
    await site.close();
  }
});

Deno.test("echo answers with the method, path, query, headers and body it received", async () => {
  const site = await startFixtureSite();
  try {
    const response = await fetch(`${site.url}echo?x=1&y=two`, {
      method: "PUT",
      headers: { "x-test": "yes" },
      body: "payload",
    });
    assert.equal(response.headers.get("content-type"), "application/json");
    const echoed = await response.json();
    assert.equal(echoed.method, "PUT");
    assert.equal(echoed.path, "/echo");
    assert.deepEqual(echoed.query, { x: "1", y: "two" });
    assert.equal(echoed.headers["x-test"], "yes");
    assert.equal(echoed.body, "payload");
  } finally {
    await site.close();
  }
});

Deno.test("slow answers after waiting, and close() ends a hanging request", async () => {
  const site = await startFixtureSite();
  try {
    const slow = await fetchText(`${site.url}slow?ms=20`);
    assert.equal(slow.body, "waited 20 ms\n");
    await assert.rejects(fetch(`${site.url}hang`, { signal: AbortSignal.timeout(50) }));
    const pending = fetch(`${site.url}hang`).then((response) => response.text().then(() => response.status));
    while (site.hits("/hang") < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await site.close();
    assert.equal(await pending, 503);
  } finally {
    await site.close();
  }
});

Deno.test("gated pages answer once the gate is opened, and with a 503 when the site closes first", async () => {
  const site = await startFixtureSite();
  const closing = await startFixtureSite();
  try {
    let answered = false;
    const held = fetchText(`${site.url}gated/a?n=1`).then((result) => (answered = true, result));
    while (site.hits("/gated/a") < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    // The request is in and a round of the event loop has passed on both sides: still no answer.
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(answered, false);
    site.openGate();
    assert.equal((await held).body, "the gate was opened\n");
    // Once open, the gate stays open.
    assert.equal((await fetchText(`${site.url}gated/b`)).response.status, 200);

    const pending = fetch(`${closing.url}gated/c`).then((response) => response.text().then(() => response.status));
    while (closing.hits("/gated/c") < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await closing.close();
    assert.equal(await pending, 503);
  } finally {
    await site.close();
    await closing.close();
  }
});

Deno.test("status answers the code asked for, with Retry-After when given", async () => {
  const site = await startFixtureSite();
  try {
    const limited = await fetchText(`${site.url}status/429?retry_after=3`);
    assert.equal(limited.response.status, 429);
    assert.equal(limited.response.headers.get("retry-after"), "3");
    const empty = await fetchText(`${site.url}status/204`);
    assert.equal(empty.response.status, 204);
    assert.equal(empty.body, "");
    assert.equal((await fetchText(`${site.url}status/503`)).response.headers.get("retry-after"), null);
    assert.equal((await fetchText(`${site.url}status/999`)).response.status, 400);
  } finally {
    await site.close();
  }
});

Deno.test("a flaky key fails its first N hits with the code given, then answers its hit count", async () => {
  const site = await startFixtureSite();
  try {
    const codes: number[] = [];
    for (let hit = 0; hit < 3; hit++) {
      codes.push((await fetchText(`${site.url}flaky/a?fail=2&code=500`)).response.status);
    }
    assert.deepEqual(codes, [500, 500, 200]);
    const after = await fetch(`${site.url}flaky/a?fail=2&code=500`);
    assert.deepEqual(await after.json(), { key: "a", hits: 4 });
    assert.equal((await fetchText(`${site.url}flaky/b`)).response.status, 503);
    assert.equal(site.hits("/flaky/a"), 4);
    assert.equal(site.hits("/flaky/b?fail=2"), 0);
  } finally {
    await site.close();
  }
});

Deno.test("cookies/set sends one Set-Cookie per parameter and cookies/show reports what came back", async () => {
  const site = await startFixtureSite();
  try {
    const set = await fetchText(`${site.url}cookies/set?session=abc&theme=dark`);
    assert.deepEqual(set.response.headers.getSetCookie(), ["session=abc; Path=/", "theme=dark; Path=/"]);
    const shown = await fetch(`${site.url}cookies/show`, { headers: { cookie: "session=abc; theme=dark" } });
    assert.deepEqual(await shown.json(), { cookies: { session: "abc", theme: "dark" } });
  } finally {
    await site.close();
  }
});

Deno.test("basic auth is challenged without the right login and granted with it", async () => {
  const site = await startFixtureSite({ basicAuth: { user: "ann", password: "s3cret" } });
  try {
    const anonymous = await fetchText(`${site.url}auth/basic`);
    assert.equal(anonymous.response.status, 401);
    assert.equal(anonymous.response.headers.get("www-authenticate"), 'Basic realm="fixture"');
    const wrong = await fetchText(`${site.url}auth/basic`, { headers: { authorization: `Basic ${btoa("ann:no")}` } });
    assert.equal(wrong.response.status, 401);
    const right = await fetch(`${site.url}auth/basic`, { headers: { authorization: `Basic ${btoa("ann:s3cret")}` } });
    assert.deepEqual(await right.json(), { authenticated: true, user: "ann" });
  } finally {
    await site.close();
  }
});

Deno.test("gzip, brotli and deflate send really compressed bodies that decompress to the page", async () => {
  const site = await startFixtureSite();
  try {
    const raw = await rawGet(`${site.url}gzip`);
    assert.equal(raw.headers["content-encoding"], "gzip");
    assert.ok(raw.body.length < COMPRESSED_PAGE.length);
    assert.equal(new TextDecoder().decode(gunzipSync(raw.body)), COMPRESSED_PAGE);
    assert.equal((await fetchText(`${site.url}gzip`)).body, COMPRESSED_PAGE);
    assert.equal((await fetchText(`${site.url}brotli`)).body, COMPRESSED_PAGE);
    // Deno's fetch does not decode deflate by itself (it does not ask for it), so this one is checked raw.
    const deflated = await rawGet(`${site.url}deflate`);
    assert.equal(deflated.headers["content-encoding"], "deflate");
    assert.equal(new TextDecoder().decode(inflateSync(deflated.body)), COMPRESSED_PAGE);
  } finally {
    await site.close();
  }
});

Deno.test("big sends as many bytes as asked, with or without a Content-Length", async () => {
  const site = await startFixtureSite();
  try {
    const sized = await rawGet(`${site.url}big?bytes=150000`);
    assert.equal(sized.headers["content-length"], "150000");
    assert.equal(sized.body.length, 150000);
    const chunked = await rawGet(`${site.url}big?bytes=150000&chunked=1`);
    assert.equal(chunked.headers["content-length"], undefined);
    assert.equal(chunked.body.length, 150000);
    assert.equal((await fetchText(`${site.url}big?bytes=-1`)).response.status, 400);
  } finally {
    await site.close();
  }
});

Deno.test("json is served as application/json", async () => {
  const site = await startFixtureSite();
  try {
    const response = await fetch(`${site.url}json`);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal((await response.json()).books.length, 2);
  } finally {
    await site.close();
  }
});

Deno.test("the links page's http links resolve against its base href to the documented list", async () => {
  const site = await startFixtureSite();
  try {
    const { body } = await fetchText(`${site.url}links`);
    const base = new URL(/<base href="([^"]+)"/.exec(body)![1], `${site.url}links`);
    const resolved = new Set<string>();
    for (const [, href] of body.matchAll(/<(?:a|area) href="([^"]*)"/g)) {
      const url = new URL(href.trim(), base);
      if (url.protocol !== "http:" && url.protocol !== "https:") continue;
      url.hash = "";
      resolved.add(url.href);
    }
    assert.deepEqual([...resolved].sort(), linksPageHttpLinks(site.origin).sort());
    assert.match(body, /href="mailto:/);
    assert.match(body, /href="javascript:/);
    assert.equal((await fetchText(`${site.url}links/base/relative.html`)).response.status, 200);
  } finally {
    await site.close();
  }
});

Deno.test("trap pages link ever deeper and the calendar never ends", async () => {
  const site = await startFixtureSite();
  try {
    assert.match((await fetchText(`${site.url}trap/`)).body, /href="\/trap\/again\/"/);
    assert.match((await fetchText(`${site.url}trap/again/again`)).body, /href="\/trap\/again\/again\/again\/"/);
    assert.match((await fetchText(`${site.url}calendar?month=2031-12`)).body, /href="\/calendar\?month=2032-01"/);
  } finally {
    await site.close();
  }
});

Deno.test("latin1 sends ISO-8859-1 bytes and says so in its Content-Type", async () => {
  const site = await startFixtureSite();
  try {
    const response = await fetch(`${site.url}latin1`);
    assert.equal(response.headers.get("content-type"), "text/html; charset=ISO-8859-1");
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.ok(bytes.includes(0xe9), "é is one byte, 0xE9");
    assert.throws(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    assert.ok(new TextDecoder("latin1").decode(bytes).includes(LATIN1_TEXT));
  } finally {
    await site.close();
  }
});

Deno.test("an unknown path is a 404 and close() can be called twice", async () => {
  const site = await startFixtureSite();
  const { response } = await fetchText(`${site.url}nowhere`);
  assert.equal(response.status, 404);
  await site.close();
  await site.close();
  await assert.rejects(fetch(site.url));
});
