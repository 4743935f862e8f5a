/** `netweir fetch URL` end to end against the fixture site on 127.0.0.1 (issue 25, item 2). */
import assert from "node:assert/strict";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { fixture, runCli } from "./_run.ts";

const SPIDER = fixture("devloop_spider.ts");

Deno.test("fetch prints the page's body on standard output, as the site sent it", async () => {
  const site = await startFixtureSite({ books: 3 });
  try {
    const expected = await (await fetch(`${site.url}shop/`)).text();
    const result = await runCli(["fetch", `${site.url}shop/`]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, expected);
    assert.equal(result.stderr, "");
  } finally {
    await site.close();
  }
});

Deno.test("fetch --spider-file sends what the spider's settings and middlewares make of the request", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const result = await runCli(["fetch", `${site.url}echo`, "--spider-file", SPIDER]);
    assert.equal(result.code, 0, result.stderr);
    const echoed = JSON.parse(result.stdout);
    assert.equal(echoed.headers["user-agent"], "devloop-bot/1.0");
    assert.equal(echoed.headers["x-devloop"], "tagged");
    const plain = JSON.parse((await runCli(["fetch", `${site.url}echo`, "-s", "user_agent=other/2"])).stdout);
    assert.equal(plain.headers["user-agent"], "other/2");
    assert.equal(plain.headers["x-devloop"], undefined);
  } finally {
    await site.close();
  }
});

Deno.test("fetch --headers prints the headers sent and received; --no-redirect shows the redirect itself", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const followed = await runCli(["fetch", `${site.url}redirect/1`, "--headers"]);
    assert.equal(followed.code, 0, followed.stderr);
    assert.match(followed.stdout, /^> GET http:\/\/127\.0\.0\.1:\d+\/echo\n/);
    assert.match(followed.stdout, /^> user-agent: netweir\//m);
    assert.match(followed.stdout, /^< 200\n/m);
    assert.match(followed.stdout, /^< content-type: application\/json/m);
    const kept = await runCli(["fetch", `${site.url}redirect/1`, "--headers", "--no-redirect"]);
    assert.equal(kept.code, 0, kept.stderr);
    assert.match(kept.stdout, /^< 30[12378]\n/m);
    assert.match(kept.stdout, /^< location: /m);
  } finally {
    await site.close();
  }
});

Deno.test("fetch prints a 404's body too, and exits 0", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const result = await runCli(["fetch", `${site.url}status/404`]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, await (await fetch(`${site.url}status/404`)).text());
  } finally {
    await site.close();
  }
});

Deno.test("fetch exits 1 with one line when the fetch fails, or robots.txt forbids the page", async () => {
  const site = await startFixtureSite({ books: 1, robots: "User-agent: *\nDisallow: /shop/\n" });
  const closed = `http://127.0.0.1:${site.port}/`;
  try {
    const forbidden = await runCli(["fetch", `${site.url}shop/`]);
    assert.equal(forbidden.code, 1);
    assert.equal(forbidden.stderr, `netweir: ${site.url}shop/ was not fetched: forbidden by robots.txt\n`);
    assert.equal(forbidden.stdout, "");
    assert.equal(site.hits("/shop/"), 0);
  } finally {
    await site.close();
  }
  const refused = await runCli(["fetch", closed, "-s", "retries=0"]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^netweir: fetching http:\/\/127\.0\.0\.1:\d+\/ failed: connection refused[^\n]*\n$/);
});

Deno.test("fetch refuses a URL that is not one, and a bad setting, with one line and exit 2", async () => {
  const bad = await runCli(["fetch", "not-a-url"]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'netweir: Request URL is not an absolute URL: "not-a-url"\n');
  const setting = await runCli(["fetch", "http://127.0.0.1:1/", "-s", "retriez=1"]);
  assert.equal(setting.code, 2);
  assert.match(setting.stderr, /^netweir: unknown setting retriez \(did you mean retries\?\)\n$/);
});

Deno.test("fetch --render prints the DOM after the page's scripts ran, from Chromium", async () => {
  // Two listing pages: the first one's script writes its "next" link into <nav id="pager"> as it runs (the products
  // come later, from an API, and are not waited for here).
  const site = await startJsSite({ products: 8, perPage: 4 });
  const pager = /<nav id="pager"><a id="next" href="\/list\/2">next<\/a><\/nav>/;
  try {
    const plain = await runCli(["fetch", site.url]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /<nav id="pager"><\/nav>/);
    const rendered = await runCli(["fetch", site.url, "--render"]);
    assert.equal(rendered.code, 0, rendered.stderr);
    assert.match(rendered.stdout, pager);
    assert.doesNotMatch(plain.stdout, pager);
  } finally {
    await site.close();
  }
});
