/**
 * The crawl's host resolver (src/runtime/dns/) against a real DNS server on 127.0.0.1 (tests/helpers/dns_server.ts,
 * UDP), counting the queries it gets: one per name per TTL, shared by concurrent lookups, the TTL kept between its
 * floor and cap, the least recently used names dropped past the bound, IP literals and hosts-file names never asked,
 * failures kept briefly and said in words, and a slow answer that leaves the event loop free. The cache's clock is the
 * test's own (a number it moves), so no expiry is waited for. About 2 s.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHostResolver, DnsLookupError, type HostResolverOptions } from "../../src/runtime/dns/resolver.ts";
import { HostsFile, parseHosts } from "../../src/runtime/dns/hosts_file.ts";
import { describeNetworkFailure, networkFailureKind } from "../../src/fetch/network_errors.ts";
import { type DnsEntry, type DnsServer, startDnsServer } from "../helpers/dns_server.ts";
import { freePort } from "../helpers/free_port.ts";

const EMPTY_HOSTS = join(tmpdir(), "netweir-no-such-hosts-file");

interface Setup {
  dns: DnsServer;
  /** The test's clock, in milliseconds: move `clock.now` to let answers expire. */
  clock: { now: number };
  resolver: (options?: Partial<HostResolverOptions>) => ReturnType<typeof createHostResolver>;
}

async function withDns(names: Record<string, DnsEntry>, test: (setup: Setup) => Promise<void>): Promise<void> {
  const dns = await startDnsServer(names);
  const clock = { now: 0 };
  const resolver = (options: Partial<HostResolverOptions> = {}) =>
    createHostResolver({
      servers: [dns.address],
      cache: true,
      timeout: 2,
      minTtl: 0,
      maxTtl: 3600,
      negativeTtl: 10,
      size: 100,
      now: () => clock.now,
      hostsFile: new HostsFile(EMPTY_HOSTS, () => clock.now),
      ...options,
    });
  try {
    await test({ dns, clock, resolver });
  } finally {
    await dns.close();
  }
}

Deno.test("a name is asked once, and again only after its TTL", async () => {
  await withDns({ "shop-1.test": { a: ["127.0.0.1"], ttl: 30 } }, async ({ dns, clock, resolver }) => {
    const hosts = resolver();
    assert.deepEqual(await hosts.resolve("shop-1.test"), ["127.0.0.1"]);
    clock.now = 29_000;
    assert.deepEqual(await hosts.resolve("SHOP-1.test."), ["127.0.0.1"]);
    assert.equal(dns.queries("shop-1.test"), 1);
    clock.now = 30_001;
    await hosts.resolve("shop-1.test");
    assert.equal(dns.queries("shop-1.test", "A"), 2);
    assert.equal(hosts.queries, 2);
  });
});

Deno.test("lookups of one name at the same time share one query", async () => {
  await withDns({ "busy.test": { a: ["127.0.0.2"], delayMs: 100 } }, async ({ dns, resolver }) => {
    const hosts = resolver();
    const answers = await Promise.all(Array.from({ length: 20 }, () => hosts.resolve("busy.test")));
    assert.ok(answers.every((answer) => answer[0] === "127.0.0.2"));
    assert.equal(dns.queries("busy.test"), 1);
  });
});

Deno.test("the TTL is held between dns_min_ttl and dns_max_ttl", async () => {
  const names = { "zero.test": { a: ["127.0.0.3"], ttl: 0 }, "long.test": { a: ["127.0.0.4"], ttl: 86_400 } };
  await withDns(names, async ({ dns, clock, resolver }) => {
    const hosts = resolver({ minTtl: 5, maxTtl: 60 });
    await hosts.resolve("zero.test");
    await hosts.resolve("long.test");
    clock.now = 4_000;
    await hosts.resolve("zero.test");
    assert.equal(dns.queries("zero.test"), 1, "a TTL of 0 is kept for the floor");
    clock.now = 5_001;
    await hosts.resolve("zero.test");
    assert.equal(dns.queries("zero.test"), 2);
    clock.now = 59_000;
    await hosts.resolve("long.test");
    assert.equal(dns.queries("long.test"), 1);
    clock.now = 60_001;
    await hosts.resolve("long.test");
    assert.equal(dns.queries("long.test"), 2, "a day's TTL is cut to the cap");
  });
});

Deno.test("past its size the cache forgets the name used least recently", async () => {
  const names = Object.fromEntries(["a", "b", "c"].map((name) => [`${name}.test`, { a: ["127.0.0.5"] }]));
  await withDns(names, async ({ dns, resolver }) => {
    const hosts = resolver({ size: 2 });
    await hosts.resolve("a.test");
    await hosts.resolve("b.test");
    await hosts.resolve("a.test"); // a is now the more recent of the two
    await hosts.resolve("c.test"); // b goes
    await hosts.resolve("a.test");
    assert.equal(dns.queries("a.test"), 1);
    await hosts.resolve("b.test");
    assert.equal(dns.queries("b.test"), 2);
  });
});

Deno.test("with the cache off every lookup is a query", async () => {
  await withDns({ "shop-1.test": { a: ["127.0.0.1"], ttl: 300 } }, async ({ dns, resolver }) => {
    const hosts = resolver({ cache: false });
    for (let i = 0; i < 3; i++) await hosts.resolve("shop-1.test");
    assert.equal(dns.queries("shop-1.test"), 3);
  });
});

Deno.test("IP literals, hosts-file names and localhost are never sent to DNS", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-hosts-"));
  try {
    const path = join(dir, "hosts");
    await writeFile(
      path,
      "# comment\n::1 listed.test\n127.0.0.9   listed.test alias.test # trailing\nfe80::1%lo0 zoned\n",
    );
    await withDns({}, async ({ dns, resolver, clock }) => {
      const hosts = resolver({ hostsFile: new HostsFile(path, () => clock.now) });
      assert.deepEqual(await hosts.resolve("127.0.0.1"), ["127.0.0.1"]);
      assert.deepEqual(await hosts.resolve("[::1]"), ["::1"]);
      assert.deepEqual(await hosts.resolve("listed.test"), ["127.0.0.9", "::1"], "IPv4 first");
      assert.deepEqual(await hosts.resolve("ALIAS.test"), ["127.0.0.9"]);
      assert.deepEqual(await hosts.resolve("localhost"), ["127.0.0.1", "::1"]);
      assert.deepEqual(await hosts.resolve("app.localhost"), ["127.0.0.1", "::1"]);
      assert.equal(dns.total(), 0);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.equal(parseHosts("fe80::1%lo0 zoned\n").size, 0);
});

Deno.test("a name with only AAAA records is answered with them", async () => {
  await withDns({ "six.test": { aaaa: ["::1"], ttl: 60 } }, async ({ dns, resolver }) => {
    const hosts = resolver();
    assert.deepEqual(await hosts.resolve("six.test"), ["::1"]);
    assert.equal(dns.queries("six.test", "A"), 1);
    assert.equal(dns.queries("six.test", "AAAA"), 1);
  });
});

Deno.test("an unknown name fails with the crawl's DNS error, kept for the negative TTL", async () => {
  await withDns({}, async ({ dns, clock, resolver }) => {
    const hosts = resolver({ negativeTtl: 10 });
    const first = await hosts.resolve("nowhere.test").catch((error) => error);
    assert.ok(first instanceof DnsLookupError);
    assert.equal(first.code, "ENOTFOUND");
    assert.equal(networkFailureKind(first), "dns");
    assert.equal(
      describeNetworkFailure(first, "http://nowhere.test/a"),
      "host name nowhere.test not found (DNS lookup failed: no such name)",
    );
    const asked = dns.queries("nowhere.test");
    // A, then AAAA (Deno cannot tell "no such name" from "no A record").
    assert.ok(asked >= 1 && asked <= 2, `${asked} queries`);
    clock.now = 9_000;
    await assert.rejects(hosts.resolve("nowhere.test"), DnsLookupError);
    assert.equal(dns.queries("nowhere.test"), asked, "the failure was kept");
    clock.now = 10_001;
    await assert.rejects(hosts.resolve("nowhere.test"), DnsLookupError);
    assert.equal(dns.queries("nowhere.test"), asked * 2);
  });
});

Deno.test("a DNS server that does not answer in time fails the lookup in one line, not as 'not found'", async () => {
  await withDns({ "slow.test": { a: ["127.0.0.1"], delayMs: 3_000 } }, async ({ dns, resolver }) => {
    const hosts = resolver({ timeout: 0.4 });
    const error = await hosts.resolve("slow.test").catch((error) => error);
    assert.ok(error instanceof DnsLookupError, String(error));
    assert.equal(error.code, "EAI_AGAIN");
    const said = describeNetworkFailure(error, "http://slow.test/");
    assert.match(said, new RegExp(`^DNS lookup of slow\\.test failed: no answer .*${dns.address}`));
    assert.ok(!said.includes("\n"));
  });
});

Deno.test("a DNS server that is not there fails the lookup, named as a DNS failure", async () => {
  const port = await freePort(); // a TCP port that was free; nothing listens on its UDP twin either
  await withDns({}, async ({ resolver }) => {
    const hosts = resolver({ servers: [`127.0.0.1:${port}`], timeout: 1 });
    const error = await hosts.resolve("shop-1.test").catch((error) => error);
    assert.ok(error instanceof DnsLookupError, String(error));
    assert.equal(networkFailureKind(error), "dns");
    assert.match(describeNetworkFailure(error, "http://shop-1.test/"), /shop-1\.test/);
  });
});

Deno.test("a slow lookup leaves the event loop free, and other names answered", async () => {
  const names = { "slow.test": { a: ["127.0.0.1"], delayMs: 600 }, "fast.test": { a: ["127.0.0.2"] } };
  await withDns(names, async ({ resolver }) => {
    const hosts = resolver();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const order: string[] = [];
    const slow = hosts.resolve("slow.test").then(() => order.push("slow"));
    await hosts.resolve("fast.test").then(() => order.push("fast"));
    const ticksWhenFast = ticks;
    await slow;
    clearInterval(timer);
    assert.deepEqual(order, ["fast", "slow"]);
    // The interval kept running while the slow answer was awaited: nothing held the thread.
    assert.ok(ticks > ticksWhenFast + 5, `${ticks} ticks in all, ${ticksWhenFast} by the fast answer`);
  });
});

Deno.test("two resolvers share no answer", async () => {
  await withDns({ "shop-1.test": { a: ["127.0.0.1"] } }, async ({ dns, resolver }) => {
    await resolver().resolve("shop-1.test");
    await resolver().resolve("shop-1.test");
    assert.equal(dns.queries("shop-1.test"), 2);
  });
});
