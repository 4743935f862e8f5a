/**
 * HTTP/2 as a crawl uses it, against Node's own node:http2 server (Node 22, in a process of its own) with TLS from a
 * private CA on 127.0.0.1: each test runs `netweir crawl` as a user would, trusting the CA by DENO_CERT, and reads
 * what the server saw. The faults are caused: a server that allows one stream at a time, one that sends GOAWAY in the
 * middle of the crawl, one that never answers, one that speaks HTTP/1.1 only. Through a SOCKS proxy (microsocks) and
 * an HTTP proxy's CONNECT tunnel too. About 55 s (more on a loaded machine): 16 crawl processes, a Node server per test.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { join } from "node:path";
import { type Certificates, makeCertificates } from "../helpers/certificates.ts";
import { runCli } from "../helpers/cli.ts";
import { h2ShopSpider, type H2SiteOptions, startH2Site } from "../helpers/h2_server.ts";
import { startMicrosocks } from "../helpers/socks_proxy.ts";
import { startProxy } from "../helpers/proxy.ts";

const MOD = new URL("../../mod.ts", import.meta.url).href;
const SHOP_SPIDER = h2ShopSpider(MOD);

/** What the downloader must keep doing over HTTP/2: cookies over a redirect, gzip, trailers, the body limit. */
const FEATURES_SPIDER = `
import { Request, Spider } from ${JSON.stringify(MOD)};
export class Features extends Spider {
  site = "https://127.0.0.1:1/";
  async *start() {
    for (const path of ["login", "gzip", "trailers", "big", "hang"]) {
      yield new Request({ url: new URL(path, this.site).href, errback: this.failed, meta: { path } });
    }
  }
  parse(page) {
    return { path: page.request.meta.path, url: page.url, text: page.text, protocol: page.protocol };
  }
  failed({ error, request }) {
    return { path: request.meta.path, failed: error.reason ?? error.name };
  }
}
`;

interface Crawled {
  items: Array<Record<string, unknown>>;
  stats: Record<string, unknown>;
  stderr: string;
  code: number | null;
  /** The HAR archive, when the settings asked for `har=run.har`. */
  har: { log: { entries: Array<{ request: { httpVersion: string }; response: { httpVersion: string } }> } } | undefined;
}

/** Runs a crawl of `spider` at `site` with `settings`, trusting the test CA; its items and final stats. */
async function crawl(spider: string, site: Site, settings: string[]): Promise<Crawled> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-h2-"));
  const file = join(dir, "spider.ts");
  await writeFile(file, spider);
  const out = join(dir, "items.jsonl");
  const statsFile = join(dir, "stats.json");
  const args = ["crawl", file, "-a", `site=${site.url}`, "-O", out, "-s", `stats_file=${statsFile}`];
  args.push("-s", "obey_robots_txt=false", "-s", "progress=false");
  if (!settings.some((setting) => setting.startsWith("retries="))) args.push("-s", "retries=0");
  for (const setting of settings) args.push("-s", setting);
  const ran = await runCli(args, { cwd: dir, env: { DENO_CERT: site.ca }, timeoutMs: 60_000 });
  const text = await readFile(out, "utf8").catch(() => "");
  const items = text.trim() === "" ? [] : text.trim().split("\n").map((line) => JSON.parse(line));
  const stats = JSON.parse(await readFile(statsFile, "utf8").catch(() => "{}"));
  const har = await readFile(join(dir, "run.har"), "utf8").then(JSON.parse, () => undefined);
  await rm(dir, { recursive: true, force: true });
  return { items, stats, stderr: ran.stderr, code: ran.code, har };
}

type Site = Awaited<ReturnType<typeof startH2Site>> & { ca: string | undefined };

/** Runs `test` against a site started with `options`, with TLS from a CA of its own when `tls`. */
async function withSite(
  options: Omit<H2SiteOptions, "certs"> & { tls?: boolean },
  test: (site: Site) => Promise<void>,
) {
  const dir = await mkdtemp(join(tmpdir(), "netweir-h2-certs-"));
  try {
    const certs: Certificates | undefined = options.tls ? await makeCertificates(dir) : undefined;
    const site = await startH2Site({ ...options, certs });
    try {
      await test({ ...site, ca: certs?.ca });
    } finally {
      await site.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

Deno.test("a crawl over TLS uses HTTP/2 where the server picks it, every page on one connection", async () => {
  await withSite({ tls: true, allowHttp1: true, items: 20, delayMs: 30 }, async (site) => {
    const run = await crawl(SHOP_SPIDER, site, ["per_domain=8", "har=run.har"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.items.length, 21);
    for (const item of run.items) assert.equal(item.protocol, "h2");
    const seen = await site.seen();
    assert.equal(seen.log.length, 21);
    assert.ok(seen.log.every((request) => request.version === "2.0"));
    assert.equal(seen.connections, 1);
    // Several streams were open at once on that one connection.
    assert.ok(seen.maxOpen > 1, `at most ${seen.maxOpen} stream open at once`);
    assert.equal(run.stats["downloader/protocol/h2"], 21);
    assert.equal(run.stats["downloader/protocol/http/1.1"], undefined);
    assert.equal(run.har?.log.entries.length, 21);
    for (const entry of run.har!.log.entries) {
      assert.equal(entry.request.httpVersion, "HTTP/2");
      assert.equal(entry.response.httpVersion, "HTTP/2");
    }
  });
});

Deno.test("http2=off, and a hosts entry saying so, crawl the same server over HTTP/1.1", async () => {
  await withSite({ tls: true, allowHttp1: true, items: 5 }, async (site) => {
    for (const setting of ["http2=off", 'hosts={"127.0.0.1": {"http2": "off"}}']) {
      const run = await crawl(SHOP_SPIDER, site, [setting]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.items.length, 6, setting);
      for (const item of run.items) assert.equal(item.protocol, "http/1.1", setting);
      assert.equal(run.stats["downloader/protocol/http/1.1"], 6);
      assert.equal(run.stats["downloader/protocol/h2"], undefined);
    }
    const seen = await site.seen();
    assert.equal(seen.log.length, 12);
    assert.ok(seen.log.every((request) => request.version === "1.1"));
  });
});

Deno.test("a server that allows one stream at a time gets one at a time, and every page", async () => {
  await withSite({ tls: true, maxStreams: 1, items: 15, delayMs: 20 }, async (site) => {
    const run = await crawl(SHOP_SPIDER, site, ["per_domain=8"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.items.length, 16);
    assert.equal(run.stats.errors, 0);
    const seen = await site.seen();
    assert.equal(seen.maxOpen, 1);
    assert.equal(seen.connections, 1);
    assert.equal(seen.log.length, 16);
  });
});

Deno.test("after a GOAWAY mid-crawl, the requests the server did not process are sent again on a new connection", async () => {
  await withSite({ tls: true, goawayAfter: 6, items: 30, delayMs: 10 }, async (site) => {
    const run = await crawl(SHOP_SPIDER, site, ["per_domain=8"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.items.length, 31);
    assert.equal(run.stats.errors, 0);
    // Sent again by the HTTP/2 client, not retried by the crawl: the server never took them.
    assert.equal(run.stats.retries, 0);
    const seen = await site.seen();
    assert.ok(seen.connections >= 2, `${seen.connections} connection`);
    const titles = new Set(run.items.filter((item) => item.kind === "item").map((item) => item.title));
    assert.equal(titles.size, 30);
  });
});

Deno.test("over HTTP/2, cookies follow a redirect, gzip is decoded, trailers are left alone, limits and timeouts hold", async () => {
  await withSite({ tls: true }, async (site) => {
    const run = await crawl(FEATURES_SPIDER, site, ["max_body_size=100000", "timeout=1.5"]);
    assert.equal(run.code, 0, run.stderr);
    const byPath = Object.fromEntries(run.items.map((item) => [item.path, item]));
    assert.equal(byPath.login.text, "cookie: session=opened");
    assert.equal(byPath.login.url, `${site.url}account`);
    assert.equal(byPath.login.protocol, "h2");
    assert.equal(byPath.gzip.text, "unzipped over h2");
    assert.equal(byPath.trailers.text, "with trailers");
    assert.equal(byPath.big.failed, "too_large");
    assert.equal(byPath.hang.failed, "timeout");
  });
});

Deno.test("http2=only: h2c by prior knowledge on plain http, and a clear failure where the server refuses h2", async () => {
  await withSite({ items: 3 }, async (site) => {
    const run = await crawl(SHOP_SPIDER, site, ["http2=only"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.items.length, 4);
    for (const item of run.items) assert.equal(item.protocol, "h2");
    assert.ok((await site.seen()).log.every((request) => request.version === "2.0"));
  });
  await withSite({ tls: true, http1Only: true, items: 3 }, async (site) => {
    const run = await crawl(SHOP_SPIDER, site, ["http2=only"]);
    assert.equal(run.items.length, 0);
    assert.match(run.stderr, /127\.0\.0\.1:\d+ does not speak HTTP\/2 \(it refused h2 by ALPN\), and http2 is "only"/);
    // And auto takes what it chose.
    const auto = await crawl(SHOP_SPIDER, site, []);
    assert.equal(auto.items.length, 4);
    for (const item of auto.items) assert.equal(item.protocol, "http/1.1");
  });
});

Deno.test("HTTP/2 through a SOCKS5 proxy and through an HTTP proxy's CONNECT tunnel", async () => {
  await withSite({ tls: true, items: 5 }, async (site) => {
    const socks = await startMicrosocks({ user: "h2-user", password: "h2-secret" });
    const http = await startProxy({ user: "tunnel-user", password: "tunnel-secret" });
    try {
      for (
        const proxy of [
          `socks5h://h2-user:h2-secret@${socks.address}`,
          `http://tunnel-user:tunnel-secret@127.0.0.1:${http.port}`,
        ]
      ) {
        const run = await crawl(SHOP_SPIDER, site, [`proxies=["${proxy}"]`]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.items.length, 6, proxy);
        for (const item of run.items) assert.equal(item.protocol, "h2", proxy);
      }
      assert.deepEqual(http.requests, [new URL(site.url).host]);
      assert.equal((await site.seen()).connections, 2);
    } finally {
      await socks.kill();
      await http.close();
    }
  });
});

Deno.test("an HTTP/1.1-only site through an HTTP proxy's tunnel is crawled over HTTP/1.1, the login kept out of the log", async () => {
  await withSite({ tls: true, http1Only: true, items: 5 }, async (site) => {
    const http = await startProxy({ user: "tunnel-user", password: "tunnel-secret" });
    try {
      const run = await crawl(SHOP_SPIDER, site, [
        `proxies=["http://tunnel-user:tunnel-secret@127.0.0.1:${http.port}"]`,
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.items.length, 6);
      for (const item of run.items) assert.equal(item.protocol, "http/1.1");
      // Every connection went through CONNECT: none of the site's requests came to the proxy as absolute URLs.
      assert.ok(http.requests.length >= 1);
      assert.ok(http.requests.every((target) => target === new URL(site.url).host), JSON.stringify(http.requests));
      const wrong = await crawl(SHOP_SPIDER, site, [
        `proxies=["http://tunnel-user:wrong-secret@127.0.0.1:${http.port}"]`,
      ]);
      assert.equal(wrong.items.length, 0);
      assert.match(
        wrong.stderr,
        /HTTP proxy http:\/\/tunnel-user@127\.0\.0\.1:\d+ refused to connect to 127\.0\.0\.1:\d+: status 407/,
      );
      assert.doesNotMatch(wrong.stderr, /wrong-secret/);
    } finally {
      await http.close();
    }
  });
});

/** A TCP relay to `port` whose first connection is held open and never answered (a TLS handshake that hangs). */
function relayHangingFirst(port: number): Promise<{ port: number; close: () => void }> {
  let connections = 0;
  const held: Socket[] = [];
  const server = createServer((client) => {
    if (++connections === 1) return void held.push(client);
    const upstream = connect({ host: "127.0.0.1", port });
    held.push(client, upstream);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => {
          for (const socket of held) socket.destroy();
          server.close();
        },
      }))
  );
}

Deno.test("a TLS handshake that hangs holds up the site's requests only until their timeout; their retries connect anew", async () => {
  await withSite({ tls: true, items: 4 }, async (site) => {
    const relay = await relayHangingFirst(Number(new URL(site.url).port));
    try {
      const relayed = { ...site, url: `https://127.0.0.1:${relay.port}/` };
      const run = await crawl(SHOP_SPIDER, relayed, ["timeout=2", "retries=2", "retry_backoff=0.1"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.items.length, 5);
      assert.equal(run.stats.errors, 0);
      assert.ok(Number(run.stats.retries) >= 1);
    } finally {
      relay.close();
    }
  });
});

Deno.test("a server that agrees to HTTP/2 and never sends its SETTINGS holds up requests only until their timeout", async () => {
  await withSite({ items: 4 }, async (h2c) => {
    // TLS with ALPN h2 in front of the h2c site; its first connection is held silent after the handshake.
    const dir = await mkdtemp(join(tmpdir(), "netweir-h2-silent-"));
    const certs = await makeCertificates(dir);
    let connections = 0;
    const held: Socket[] = [];
    const front = createTlsServer({
      key: await readFile(certs.serverKey),
      cert: await readFile(certs.serverCert),
      ALPNProtocols: ["h2"],
    }, (secure) => {
      held.push(secure);
      if (++connections === 1) return;
      const upstream = connect({ host: "127.0.0.1", port: Number(new URL(h2c.url).port) });
      held.push(upstream);
      secure.pipe(upstream).pipe(secure);
      secure.on("error", () => upstream.destroy());
      upstream.on("error", () => secure.destroy());
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    try {
      const site = { ...h2c, url: `https://127.0.0.1:${(front.address() as AddressInfo).port}/`, ca: certs.ca };
      const run = await crawl(SHOP_SPIDER, site, ["timeout=2", "retries=2", "retry_backoff=0.1"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.items.length, 5);
      for (const item of run.items) assert.equal(item.protocol, "h2");
      assert.ok(Number(run.stats.retries) >= 1);
      assert.ok(connections >= 2);
    } finally {
      for (const socket of held) socket.destroy();
      front.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
