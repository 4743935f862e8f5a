/**
 * HTTPS over a host name that the crawl's DNS cache looks up (a real DNS server on 127.0.0.1, dns_servers), as
 * `netweir crawl` runs it: the connection goes to the cached address, and the certificate, which names the host and
 * not 127.0.0.1, is checked against the NAME. The test CA is trusted by DENO_CERT. Over HTTP/2 (the server picks it
 * by ALPN: node:tls with the cache as its lookup) and over HTTP/1.1 (http2=off: Deno.connect to the address, then
 * Deno.startTls with the name); `secure.test`'s first address refuses connections, so both dials show they go on to
 * the next. A name the certificate does not cover fails as a TLS failure. About 8 s: four crawl processes.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Certificates, makeCertificates } from "../helpers/certificates.ts";
import { runCli } from "../helpers/cli.ts";
import { type DnsServer, startDnsServer } from "../helpers/dns_server.ts";
import { chainSpiderSource, type NamedTlsSite, startNamedTlsSite } from "../helpers/named_tls_site.ts";

const MOD = new URL("../../mod.ts", import.meta.url).href;

async function withNamedTls(
  test: (dir: string, certs: Certificates, site: NamedTlsSite, dns: DnsServer) => Promise<void>,
) {
  const dir = await mkdtemp(join(tmpdir(), "netweir-dns-tls-"));
  const certs = await makeCertificates(dir, ["DNS:secure.test"]);
  const site = startNamedTlsSite(certs, 3);
  const dns = await startDnsServer({
    // The server listens on 127.0.0.1 only: the first address refuses, and the dial goes on to the next.
    "secure.test": { a: ["127.0.0.2", "127.0.0.1"], ttl: 300 },
    "impostor.test": { a: ["127.0.0.1"], ttl: 300 },
  });
  try {
    await writeFile(join(dir, "chain.ts"), chainSpiderSource(MOD));
    await test(dir, certs, site, dns);
  } finally {
    await dns.close();
    await site.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function crawl(dir: string, ca: string, start: string, dns: DnsServer, settings: string[]) {
  const out = join(dir, "items.jsonl");
  await rm(out, { force: true });
  const args = ["crawl", "chain.ts", "-a", `site=${start}`, "-O", out, "-s", `dns_servers=${dns.address}`];
  for (const setting of ["obey_robots_txt=false", "retries=0", "progress=false", ...settings]) args.push("-s", setting);
  const ran = await runCli(args, { cwd: dir, env: { DENO_CERT: ca } });
  const text = await readFile(out, "utf8").catch(() => "");
  const items = text.trim() === "" ? [] : text.trim().split("\n").map((line) => JSON.parse(line));
  return { ...ran, items };
}

Deno.test("HTTPS to a name the DNS cache resolves is verified against the name, over HTTP/2 and HTTP/1.1", async () => {
  await withNamedTls(async (dir, certs, site, dns) => {
    const start = `https://secure.test:${site.port}/p/0`;
    const h2 = await crawl(dir, certs.ca, start, dns, []);
    assert.equal(h2.code, 0, h2.stderr);
    assert.deepEqual(h2.items.map((item) => item.protocol), ["h2", "h2", "h2"]);
    assert.equal(dns.queries("secure.test"), 1);

    const h1 = await crawl(dir, certs.ca, start, dns, ["http2=off"]);
    assert.equal(h1.code, 0, h1.stderr);
    assert.deepEqual(h1.items.map((item) => item.protocol), ["http/1.1", "http/1.1", "http/1.1"]);
    assert.equal(dns.queries("secure.test"), 2, "one lookup for the second crawl too");
    assert.deepEqual(site.served.filter((entry) => entry.startsWith("secure.test ")).length, 6);
  });
});

Deno.test("a name the server's certificate does not cover fails as a TLS failure, though its address is right", async () => {
  await withNamedTls(async (dir, certs, site, dns) => {
    for (const settings of [[], ["http2=off"]]) {
      const run = await crawl(dir, certs.ca, `https://impostor.test:${site.port}/p/0`, dns, settings);
      assert.equal(run.items.length, 0);
      assert.match(run.stderr, new RegExp(`TLS handshake with impostor\\.test:${site.port} failed`), run.stderr);
      assert.match(run.stderr, /the certificate is for another name/, run.stderr);
      assert.doesNotMatch(run.stderr, /DENO_CERT/, "trusting a CA is no answer to a certificate for another name");
    }
    assert.equal(site.served.length, 0);
  });
});
