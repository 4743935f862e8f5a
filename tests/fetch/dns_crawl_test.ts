/**
 * Crawls over host names, each name answered by a real DNS server on 127.0.0.1 (tests/helpers/dns_server.ts) that the
 * crawl is pointed at with `dns_servers`, and served by one HTTP server that closes every connection, so each page is
 * a new connection that needs its host's address. The DNS server counts the queries: one per name for a whole crawl
 * with the cache on, one per connection with it off, a second one after a short TTL ran out; a name whose answer is
 * slow holds up no other host's pages; a name that does not exist fails its pages with the crawl's one-line DNS error
 * while the rest of the crawl goes on. Through a socks5:// proxy (microsocks) the name is looked up here too. In-process crawls; about 6 s.
 */
import assert from "node:assert/strict";
import { type Page, Spider } from "../../mod.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { type DnsEntry, type DnsServer, startDnsServer } from "../helpers/dns_server.ts";
import { type NamedSite, startNamedSite } from "../helpers/named_site.ts";
import { startMicrosocks } from "../helpers/socks_proxy.ts";

/** Follows each site's chain of pages from /p/0, yielding an item per page; waits `pauseMs` in each callback. */
class Chains extends Spider {
  constructor(readonly urls: string[], readonly pauseMs = 0) {
    super();
    this.startUrls = urls;
  }
  override async *parse(page: Page) {
    if (this.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    yield { url: page.url };
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
  }
}

async function withSite(
  pages: number,
  names: Record<string, DnsEntry>,
  test: (site: NamedSite, dns: DnsServer) => Promise<void>,
): Promise<void> {
  const site = await startNamedSite(pages);
  const dns = await startDnsServer(names);
  try {
    await test(site, dns);
  } finally {
    await dns.close();
    await site.close();
  }
}

const shops = (count: number, entry: DnsEntry) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`shop-${i + 1}.test`, entry]));

Deno.test("a crawl of 20 sites by name asks DNS once per name with the cache on, once per connection with it off", async () => {
  await withSite(10, shops(20, { a: ["127.0.0.1"], ttl: 300 }), async (site, dns) => {
    const urls = Array.from({ length: 20 }, (_, i) => `http://shop-${i + 1}.test:${site.port}/p/0`);
    const cached = await crawl(new Chains(urls), { dnsServers: [dns.address] });
    assert.equal(cached.items.length, 200);
    assert.equal(site.served.length, 220, "each site's robots.txt and its 10 pages");
    for (let i = 1; i <= 20; i++) assert.equal(dns.queries(`shop-${i}.test`), 1, `shop-${i}.test`);
    assert.equal(dns.total(), 20);

    const uncached = await crawl(new Chains(urls), { dnsServers: [dns.address], dnsCache: false });
    assert.equal(uncached.items.length, 200);
    // One query per connection: robots.txt and 10 pages a site.
    for (let i = 1; i <= 20; i++) assert.equal(dns.queries(`shop-${i}.test`), 1 + 11, `shop-${i}.test`);
  });
});

Deno.test("a short TTL is honoured: the name is asked again once it has run out", async () => {
  await withSite(3, { "brief.test": { a: ["127.0.0.1"], ttl: 1 } }, async (site, dns) => {
    // Each callback waits 1.2 s, so each page's connection comes after the previous answer's second ran out.
    const run = await crawl(new Chains([`http://brief.test:${site.port}/p/0`], 1200), {
      dnsServers: [dns.address],
      dnsMinTtl: 0,
    });
    assert.equal(run.items.length, 3);
    // robots.txt and page 0 on the first answer, then pages 1 and 2 each on a fresh one.
    assert.equal(dns.queries("brief.test"), 3);
  });
});

Deno.test("a slow DNS answer for one host does not hold up the pages of another", async () => {
  // 800 ms: Deno's resolver gives a query 1 s before it asks again (docs/design/dns.md).
  const names = { "slow.test": { a: ["127.0.0.1"], delayMs: 800 }, "fast.test": { a: ["127.0.0.1"] } };
  await withSite(8, names, async (site, dns) => {
    const urls = [`http://slow.test:${site.port}/p/0`, `http://fast.test:${site.port}/p/0`];
    const run = await crawl(new Chains(urls), { dnsServers: [dns.address] });
    assert.equal(run.items.length, 16);
    const firstSlow = site.served.findIndex((entry) => entry.startsWith("slow.test "));
    const fastServed = site.served.filter((entry) => entry.startsWith("fast.test ")).length;
    // fast.test's robots.txt and all 8 pages were served while slow.test's address was still being looked up.
    assert.equal(firstSlow, 9, site.served.join(", "));
    assert.equal(fastServed, 9);
    assert.equal(dns.queries("slow.test"), 1);
  });
});

Deno.test("a name that does not exist fails its pages with one line naming it, and the crawl goes on", async () => {
  await withSite(5, { "ok.test": { a: ["127.0.0.1"] } }, async (site, dns) => {
    const urls = [`http://nowhere.test:${site.port}/p/0`, `http://ok.test:${site.port}/p/0`];
    const run = await crawl(new Chains(urls), { dnsServers: [dns.address], retries: 2 });
    assert.equal(run.items.length, 5);
    const said = run.lines.filter((line) => line.includes("nowhere.test") && line.includes("DNS"));
    assert.ok(said.length > 0, run.lines.join("\n"));
    assert.ok(
      said.every((line) => line.includes("host name nowhere.test not found (DNS lookup failed: no such name)")),
    );
    assert.ok(said.every((line) => !line.trimEnd().includes("\n") && !line.includes("    at ")));
    assert.equal(run.stats.errors, 1);
    // robots.txt, the page and its two retries all took the one failed lookup (A, then AAAA), kept for 10 s.
    const asked = dns.queries("nowhere.test");
    assert.ok(asked >= 1 && asked <= 2, `${asked} queries`);
  });
});

Deno.test("through a socks5:// proxy the crawl's DNS cache looks the name up, and the proxy is sent the address", async () => {
  await withSite(6, { "proxied.test": { a: ["127.0.0.1"], ttl: 300 } }, async (site, dns) => {
    // microsocks would ask the system's DNS for a name, which knows no proxied.test: only an address can work.
    const proxy = await startMicrosocks();
    try {
      const run = await crawl(new Chains([`http://proxied.test:${site.port}/p/0`]), {
        dnsServers: [dns.address],
        proxies: [`socks5://${proxy.address}`],
        retries: 0,
      });
      assert.equal(run.items.length, 6, run.lines.filter((line) => line.includes("WARN")).join(""));
      assert.equal(dns.queries("proxied.test"), 1, "robots.txt and six pages, each a new connection, one lookup");
    } finally {
      await proxy.kill();
    }
  });
});

Deno.test("a name whose first address refuses connections is reached at its next", async () => {
  // The site listens on 127.0.0.1 only: 127.0.0.2, though local, refuses. (The HTTP/2 dial, node:net, is shown
  // doing the same in dns_tls_test.ts.)
  await withSite(3, { "two.test": { a: ["127.0.0.2", "127.0.0.1"], ttl: 300 } }, async (site, dns) => {
    const run = await crawl(new Chains([`http://two.test:${site.port}/p/0`]), {
      dnsServers: [dns.address],
      retries: 0,
    });
    assert.equal(run.items.length, 3, run.lines.join(""));
    assert.equal(dns.queries("two.test"), 1);
  });
});
