/**
 * HTTP/2 against Debian's nginx over TLS (a private CA), started by the test with a configuration of its own: the
 * tutorial spider crawls the link shop (scripts/bench/link_shop.ts) and nginx's access log says every request came
 * over HTTP/2; with `keepalive_requests 40`, nginx ends each connection by GOAWAY after 40 requests, in the middle of
 * the crawl, and no page is lost. About 20 s: two crawls of some 330 pages each.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCertificates } from "../helpers/certificates.ts";
import { runCli } from "../helpers/cli.ts";
import { freePort } from "../helpers/free_port.ts";
import { startNginxTls } from "../helpers/nginx_tls.ts";
import { writeLinkShop } from "../../scripts/bench/link_shop.ts";

const SPIDER = new URL("../../scripts/bench/shop_css_spider.ts", import.meta.url).pathname;

async function crawlShop(maxRequests: number | undefined) {
  const dir = await mkdtemp(join(tmpdir(), "netweir-h2-nginx-"));
  try {
    const certs = await makeCertificates(dir);
    const root = join(dir, "site");
    await mkdir(root);
    const port = await freePort();
    const shop = await writeLinkShop(root, 300, `https://127.0.0.1:${port}`);
    const logPath = join(dir, "access.log");
    const nginx = await startNginxTls({
      root,
      workDir: dir,
      cert: certs.serverCert,
      key: certs.serverKey,
      http2: true,
      logPath,
      port,
      maxRequests,
    });
    try {
      const stats = join(dir, "stats.json");
      const ran = await runCli(
        [
          "crawl",
          SPIDER,
          "-a",
          `site=${nginx.url}`,
          "-O",
          join(dir, "items.jsonl"),
          "-s",
          `stats_file=${stats}`,
          "-s",
          "per_domain=16",
          "-s",
          "retries=0",
          "-s",
          "obey_robots_txt=false",
        ],
        { env: { DENO_CERT: certs.ca }, timeoutMs: 120_000 },
      );
      assert.equal(ran.code, 0, ran.stderr);
      await nginx.stop();
      const log = (await readFile(logPath, "utf8")).trim().split("\n").map((line) => {
        const [path, protocol, connection] = line.split(" ");
        return { path, protocol, connection };
      });
      return { shop, stats: JSON.parse(await readFile(stats, "utf8")), log };
    } finally {
      await nginx.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

Deno.test("the tutorial spider crawls nginx's link shop over HTTP/2, one request per page", async () => {
  const { shop, stats, log } = await crawlShop(undefined);
  assert.equal(stats.pages, shop.pages);
  assert.equal(stats.errors, 0);
  assert.equal(stats["downloader/protocol/h2"], shop.pages);
  assert.equal(log.length, shop.pages);
  assert.ok(
    log.every((line) => line.protocol === "HTTP/2.0"),
    JSON.stringify(log.find((line) => line.protocol !== "HTTP/2.0")),
  );
  assert.equal(new Set(log.map((line) => line.connection)).size, 1);
});

Deno.test("nginx ending each connection by GOAWAY after 40 requests loses no page of the crawl", async () => {
  const { shop, stats, log } = await crawlShop(40);
  assert.equal(stats.pages, shop.pages);
  assert.equal(stats.errors, 0);
  assert.equal(stats.retries, 0);
  assert.equal(stats["downloader/protocol/h2"], shop.pages);
  // Requests nginx did not process were sent again on the next connection: every page was served.
  assert.equal(new Set(log.map((line) => line.path)).size, shop.pages);
  const connections = new Set(log.map((line) => line.connection)).size;
  assert.ok(connections >= Math.ceil(shop.pages / 40), `${connections} connections for ${shop.pages} pages`);
});
