import assert from "node:assert/strict";
import type { Downloader } from "../../src/fetch/downloader.ts";
import { PARSED_KEPT, productTokens, ROBOTS_IDLE_MS, RobotsTxt, TEXT_KEPT } from "../../src/fetch/robots.ts";
import { hrefParts } from "../../src/spider/href_parts.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { downloaderWith, onHost, textOf } from "./support.ts";

const ROBOTS = [
  "User-agent: netweir",
  "Disallow: /private",
  "Allow: /private/open",
  "Crawl-delay: 2.5",
  "",
  "User-agent: *",
  "Disallow: /",
  "Crawl-delay: 9",
  "",
  "Sitemap: https://example.test/sitemap.xml",
  "",
].join("\n");

/** robots.txt fetched the way the engine will: through the downloader, null when it fails. */
function fetchTextWith(downloader: Downloader) {
  return async (url: string) => {
    try {
      const response = await downloader.fetch(new Request(url));
      return { status: response.status, text: textOf(response) };
    } catch {
      return null;
    }
  };
}

Deno.test("robots.txt rules for our product token decide, with its Crawl-delay", async () => {
  const site = await startFixtureSite({ robots: ROBOTS });
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "netweir/0.4.0");
    assert.deepEqual(await robots.check(site.url + "private/page"), { allowed: false, crawlDelay: 2.5 });
    assert.deepEqual(await robots.check(site.url + "private/open/page"), { allowed: true, crawlDelay: 2.5 });
    assert.deepEqual(await robots.check(site.url + "shop/"), { allowed: true, crawlDelay: 2.5 });
    assert.deepEqual(robots.sitemaps(site.origin), ["https://example.test/sitemap.xml"]);
    assert.deepEqual(robots.state(site.url + "anything"), { kind: "parsed", status: 200 });
    // Given the URL's parts (as the crawl gives them, to spare a parse), the same answer; another origin has none.
    const url = site.url + "shop/?page=2";
    assert.deepEqual(robots.state(url, hrefParts(url)), { kind: "parsed", status: 200 });
    const other = "http://127.0.0.2:9/shop/";
    assert.equal(robots.state(other, hrefParts(other)), undefined);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a browser-like user agent naming netweir is matched by its product token", async () => {
  const site = await startFixtureSite({ robots: ROBOTS });
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "Mozilla/5.0 (compatible; netweir/0.4; +https://x.test)");
    assert.equal((await robots.check(site.url + "shop/")).allowed, true);
    assert.equal((await robots.check(site.url + "private/x")).allowed, false);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("another user agent falls under the * group and its Crawl-delay", async () => {
  const site = await startFixtureSite({ robots: ROBOTS });
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "otherbot/1.0");
    assert.deepEqual(await robots.check(site.url + "shop/"), { allowed: false, crawlDelay: 9 });
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("robots.txt is fetched once per origin, even by callers asking at the same time", async () => {
  const site = await startFixtureSite({ robots: ROBOTS });
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "netweir/0.4.0");
    const paths = ["a", "b", "private/c", "d", "e"];
    const verdicts = await Promise.all(paths.map((path) => robots.check(site.url + path)));
    assert.deepEqual(verdicts.map((v) => v.allowed), [true, true, false, true, true]);
    await robots.check(site.url + "later");
    assert.equal(site.hits("/robots.txt"), 1);
    await robots.check(onHost(site.url, "localhost") + "private/x");
    assert.equal(site.hits("/robots.txt"), 2, "another host name is another origin");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a missing robots.txt allows everything", async () => {
  const site = await startFixtureSite({ robots: null });
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "netweir/0.4.0");
    assert.deepEqual(await robots.check(site.url + "private/page"), { allowed: true });
    assert.deepEqual(robots.state(site.origin), { kind: "missing", status: 404 });
    assert.deepEqual(robots.sitemaps(site.origin), []);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("an unreachable robots.txt allows everything", async () => {
  const site = await startFixtureSite({ robots: ROBOTS });
  const gone = site.url;
  await site.close();
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "netweir/0.4.0");
    assert.deepEqual(await robots.check(gone + "private/page"), { allowed: true });
    assert.deepEqual(robots.state(gone), { kind: "unreachable" });
    const throwing = new RobotsTxt(() => Promise.reject(new Error("boom")), "netweir");
    assert.deepEqual(await throwing.check("https://site.test/x"), { allowed: true });
  } finally {
    downloader.close();
  }
});

Deno.test("a robots.txt answering 5xx allows everything and is remembered as a server error", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    // The fixture's /robots.txt cannot fail, so robots.txt is read from its /status/503 instead.
    let asked = 0;
    const robots = new RobotsTxt(async () => {
      asked++;
      const response = await downloader.fetch(new Request(site.url + "status/503"));
      return { status: response.status, text: textOf(response) };
    }, "netweir/0.4.0");
    assert.deepEqual(await robots.check(site.url + "private/page"), { allowed: true });
    await robots.check(site.url + "other");
    assert.equal(asked, 1);
    assert.deepEqual(robots.state(site.origin), { kind: "server_error", status: 503 });
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("rules with [ ] | ^ and a ' in a query match the URLs a crawl requests", async () => {
  const rules = ["Disallow: /a[1]", "Disallow: /b|c", "Disallow: /d^e", "Disallow: /f?q='x'", "Disallow: /g%5Bh%5D"];
  const site = await startFixtureSite({ robots: `User-agent: *\n${rules.join("\n")}\n` });
  const downloader = downloaderWith();
  try {
    const robots = new RobotsTxt(fetchTextWith(downloader), "netweir/0.4.0");
    // Each URL as a request holds it, after the URL parser (which writes ' in a query as %27, ^ as %5E in some).
    for (const path of ["a[1]", "a%5B1%5D", "b|c", "d^e", "f?q='x'", "f?q=%27x%27", "g[h]"]) {
      const url = new Request(site.url + path).url;
      assert.deepEqual(await robots.check(url), { allowed: false }, url);
    }
    for (const path of ["a[2]", "b|d", "de", "f?q=x"]) {
      assert.deepEqual(await robots.check(new Request(site.url + path).url), { allowed: true }, path);
    }
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("with errors set to disallow, a robots.txt answering 5xx or unreachable disallows everything (RFC 9309)", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const failing = async () => {
      const response = await downloader.fetch(new Request(site.url + "status/503"));
      return { status: response.status, text: textOf(response) };
    };
    const strict = new RobotsTxt(failing, "netweir/0.4.0", Date.now, "disallow");
    assert.deepEqual(await strict.check(site.url + "page"), { allowed: false });
    assert.deepEqual(strict.state(site.origin), { kind: "server_error", status: 503 });
    const unreachable = new RobotsTxt(() => Promise.reject(new Error("refused")), "netweir", Date.now, "disallow");
    assert.deepEqual(await unreachable.check("https://site.test/x"), { allowed: false });
    // A missing robots.txt (4xx) still allows everything, as the RFC says.
    const missing = new RobotsTxt(() => Promise.resolve({ status: 404, text: "" }), "netweir", Date.now, "disallow");
    assert.deepEqual(await missing.check("https://site.test/x"), { allowed: true });
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a user agent's product tokens put the bot's own first", () => {
  assert.deepEqual(productTokens("netweir/0.4.0"), ["netweir"]);
  assert.deepEqual(productTokens("netweir"), ["netweir"]);
  assert.deepEqual(productTokens("Mozilla/5.0 (compatible; MyBot/1.2; +https://x.test/bot) Chrome/120.0"), [
    "mybot",
    "chrome",
  ]);
});

/**
 * robots.txt texts by origin, answered in memory and counted, for the cache's own rules: what it keeps, parses
 * again and fetches again. (A real server's answers go through the tests above.)
 */
function countedTexts(textFor: (origin: string) => string) {
  const fetched: string[] = [];
  const fetchText = (url: string) => {
    fetched.push(url);
    return Promise.resolve({ status: 200, text: textFor(new URL(url).origin) });
  };
  return { fetched, fetchText };
}

Deno.test("past the parses kept, an origin's rules still apply, parsed again from its text without a fetch", async () => {
  const { fetched, fetchText } = countedTexts((origin) => `User-agent: *\nDisallow: /${new URL(origin).hostname}\n`);
  const robots = new RobotsTxt(fetchText, "netweir/0.4.0");
  const origins = Array.from({ length: PARSED_KEPT + 200 }, (_, i) => `https://s${i}.test`);
  for (const origin of origins) assert.equal((await robots.check(`${origin}/page`)).allowed, true);
  assert.equal(robots.size.parsed, PARSED_KEPT);
  assert.equal(robots.size.known, origins.length);
  // The first origins' parses are gone; their rules are not.
  for (const origin of origins.slice(0, 50)) {
    assert.equal((await robots.check(`${origin}/${new URL(origin).hostname}/x`)).allowed, false);
  }
  assert.equal(fetched.length, origins.length, "each robots.txt fetched once");
});

Deno.test("an origin unused for an hour is forgotten, and its robots.txt fetched again when it comes back", async () => {
  let version = 1;
  const { fetched, fetchText } = countedTexts(() => `User-agent: *\nDisallow: /v${version}\n`);
  const clock = { now: 1_700_000_000_000 };
  const robots = new RobotsTxt(fetchText, "netweir/0.4.0", () => clock.now);
  assert.equal((await robots.check("https://a.test/v1")).allowed, false);
  clock.now += ROBOTS_IDLE_MS - 1000;
  assert.equal((await robots.check("https://a.test/v1")).allowed, false, "within the hour: the same copy");
  assert.equal(fetched.length, 1);
  version = 2;
  clock.now += ROBOTS_IDLE_MS - 1000;
  assert.equal((await robots.check("https://b.test/v2")).allowed, false, "b.test is new, and fetched");
  assert.ok(robots.state("https://a.test/") !== undefined, "a.test was used under an hour ago");
  clock.now += 2000;
  assert.equal((await robots.check("https://b.test/v2")).allowed, false);
  assert.equal(robots.state("https://a.test/"), undefined, "a.test is forgotten after an hour unused");
  assert.deepEqual(await robots.check("https://a.test/v1"), { allowed: true }, "fetched again: now it is v2");
  assert.equal((await robots.check("https://a.test/v2")).allowed, false);
  assert.equal(fetched.length, 3);
});

Deno.test("past the text kept, the least recently used origins are forgotten, never the one in use", async () => {
  const big = "User-agent: *\nDisallow: /private\n" + "# padding\n".repeat(TEXT_KEPT / 10 / 8);
  const { fetched, fetchText } = countedTexts(() => big);
  const robots = new RobotsTxt(fetchText, "netweir/0.4.0");
  for (let i = 0; i < 12; i++) assert.equal((await robots.check(`https://s${i}.test/private`)).allowed, false);
  assert.ok(robots.size.known < 12 && robots.size.known >= 7, `${robots.size.known} kept`);
  assert.notEqual(robots.state("https://s11.test/"), undefined);
  assert.equal(robots.state("https://s0.test/"), undefined);
  assert.equal(fetched.length, 12);
});
