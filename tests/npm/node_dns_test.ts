/**
 * The DNS cache through the packed npm build under Node 22, as a user of the package runs a crawl: names answered
 * by a real DNS server on 127.0.0.1 (dns_servers). Plain HTTP over five names whose server closes every connection
 * asks once per name (node:net's `lookup` option fed by the cache); HTTPS to a name whose certificate (from a test CA,
 * trusted by NODE_EXTRA_CA_CERTS) names the host and not its address is verified against the name, over HTTP/2 and
 * HTTP/1.1. About 10 s with a packed build in the cache; minutes when it packs one.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCertificates } from "../helpers/certificates.ts";
import { startDnsServer } from "../helpers/dns_server.ts";
import { startNamedSite } from "../helpers/named_site.ts";
import { chainSpiderSource, startNamedTlsSite } from "../helpers/named_tls_site.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";

Deno.test("on the npm build under Node 22, a crawl over names asks DNS once per name and verifies TLS by name", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-npm-dns-"));
  const certs = await makeCertificates(dir, ["DNS:secure.test"]);
  const names = ["shop-1.test", "shop-2.test", "shop-3.test", "shop-4.test", "shop-5.test", "secure.test"];
  const dns = await startDnsServer(Object.fromEntries(names.map((name) => [name, { a: ["127.0.0.1"], ttl: 300 }])));
  // The sites listen on 127.0.0.1 only: this first address refuses, and Node's dial goes on to the next.
  dns.names.set("secure.test", { a: ["127.0.0.2", "127.0.0.1"], ttl: 300 });
  const plain = await startNamedSite(4);
  const secure = startNamedTlsSite(certs, 3);
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "chain.mjs"), chainSpiderSource("netweir"));
    const out = join(pkg.dir, "items.jsonl");
    const crawl = async (sites: string[], settings: string[] = []) => {
      await rm(out, { force: true });
      const args = [
        "crawl",
        "chain.mjs",
        "-a",
        `site=${sites.join(",")}`,
        "-O",
        out,
        "-s",
        `dns_servers=${dns.address}`,
      ];
      for (const setting of ["retries=0", "progress=false", ...settings]) args.push("-s", setting);
      const ran = await pkg.netweir(args, { NODE_EXTRA_CA_CERTS: certs.ca });
      assert.equal(ran.code, 0, ran.stderr);
      return (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    };

    const shops = names.slice(0, 5).map((name) => `http://${name}:${plain.port}/p/0`);
    const items = await crawl(shops);
    assert.equal(items.length, 20);
    assert.equal(plain.served.length, 25, "robots.txt and 4 pages a site, each on a new connection");
    for (const name of names.slice(0, 5)) assert.equal(dns.queries(name), 1, name);

    const start = [`https://secure.test:${secure.port}/p/0`];
    const h2 = await crawl(start, ["obey_robots_txt=false"]);
    assert.deepEqual(h2.map((item) => item.protocol), ["h2", "h2", "h2"]);
    const h1 = await crawl(start, ["obey_robots_txt=false", "http2=off"]);
    assert.deepEqual(h1.map((item) => item.protocol), ["http/1.1", "http/1.1", "http/1.1"]);
    assert.equal(dns.queries("secure.test"), 2, "one lookup a crawl");
  } finally {
    await pkg.remove();
    await secure.close();
    await plain.close();
    await dns.close();
    await rm(dir, { recursive: true, force: true });
  }
});
