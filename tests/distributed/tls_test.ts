/**
 * rediss://: the queue over TLS to a real redis-server listening with --tls-port, with a CA and certificates this
 * test makes with openssl. The server's certificate is checked, its name included; a private CA is given with `ca=`,
 * a client certificate with `cert=` and `key=`.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "../../src/queue/queue.ts";
import { runCli } from "../helpers/cli.ts";
import { makeCertificates } from "../helpers/certificates.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { freePort } from "../helpers/free_port.ts";
import { type RedisServer, startRedis } from "../helpers/redis.ts";
import { bookUrls, readItems, startCrawler } from "./_crawl.ts";

/** A redis-server with a TLS port beside its plain one (which the helper uses to see it is up). */
async function startTlsRedis(
  certs: Awaited<ReturnType<typeof makeCertificates>>,
  authClients: boolean,
): Promise<{ redis: RedisServer; tlsPort: number }> {
  const tlsPort = await freePort();
  const redis = await startRedis({
    args: [
      "--tls-port",
      String(tlsPort),
      "--tls-cert-file",
      certs.serverCert,
      "--tls-key-file",
      certs.serverKey,
      "--tls-ca-cert-file",
      certs.ca,
      "--tls-auth-clients",
      authClients ? "yes" : "no",
      // 127.0.0.2 too: the same server reached under an address its certificate does not name.
      "--bind",
      "127.0.0.1",
      "127.0.0.2",
    ],
  });
  return { redis, tlsPort };
}

Deno.test("a crawl and the queue commands work over rediss:// with a private CA, and the server's name is checked", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-tls-"));
  const certs = await makeCertificates(dir);
  const { redis, tlsPort } = await startTlsRedis(certs, false);
  const site = await startFixtureSite({ books: 10 });
  try {
    await redis.command("CONFIG", "SET", "requirepass", "tls-secret");
    const url = `rediss://:tls-secret@127.0.0.1:${tlsPort}/0?ca=${encodeURIComponent(certs.ca)}`;
    const crawler = startCrawler({ dir, name: "tls", site, queue: url });
    const result = await crawler.process.wait();
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /tls-secret/);
    assert.deepEqual((await readItems(crawler.items)).map((item) => item.url).sort(), bookUrls(site, 10).sort());

    const status = await runCli(["queue", "status", url, "Shop", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).seen, 11);

    // The system's CAs do not know the test's CA: refused at once, not retried for a lease.
    const unknownCa = await runCli(["queue", "status", `rediss://:tls-secret@127.0.0.1:${tlsPort}/0`, "Shop"]);
    assert.equal(unknownCa.code, 1);
    assert.match(
      unknownCa.stderr,
      /^netweir: cannot reach the queue at rediss:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0: .*certificate/,
    );
    assert.equal(unknownCa.stderr.split("\n").length, 2, unknownCa.stderr);
    // The certificate names 127.0.0.1, not 127.0.0.2: the same server under another address is refused.
    const wrongName = new Queue(url.replace("127.0.0.1", "127.0.0.2"), "Shop", { timeoutSeconds: 5 });
    await assert.rejects(wrongName.status(), /cannot reach the queue at rediss:.*(altnames|does not match|IP)/i);
    await wrongName.close();
    // Plain redis:// to the TLS port is not a way round it.
    const plain = new Queue(url.replace("rediss:", "redis:"), "Shop", { timeoutSeconds: 2 });
    await assert.rejects(plain.status());
    await plain.close();
  } finally {
    await site.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a server that asks for client certificates takes the one given with cert= and key=, and refuses none", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-mtls-"));
  const certs = await makeCertificates(dir);
  const { redis, tlsPort } = await startTlsRedis(certs, true);
  try {
    const base = `rediss://127.0.0.1:${tlsPort}/0?ca=${encodeURIComponent(certs.ca)}`;
    await using withCert = new Queue(
      `${base}&cert=${encodeURIComponent(certs.clientCert)}&key=${encodeURIComponent(certs.clientKey)}`,
      "Books",
    );
    assert.deepEqual(await withCert.push(["http://127.0.0.1:9/a"]), { pushed: 1, skipped: 0 });
    const without = new Queue(base, "Books", { timeoutSeconds: 5 });
    await assert.rejects(without.status(), /cannot reach the queue at rediss:/);
    await without.close();
    const missing = new Queue(`${base}&cert=${join(dir, "nope.pem")}&key=${certs.clientKey}`, "Books");
    await assert.rejects(missing.status(), /cannot read the cert file .*nope\.pem/);
    await missing.close();
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
