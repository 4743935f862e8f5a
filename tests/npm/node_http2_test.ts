/**
 * HTTP/2 through the packed npm build under Node 22, as a user of the package runs a crawl: Node's own node:http2
 * server with a private CA (trusted by NODE_EXTRA_CA_CERTS), once with a stream cap of 1 and a GOAWAY after 5
 * requests. About 25 s with a packed build in the cache; over 2 minutes on a loaded machine when it packs one.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCertificates } from "../helpers/certificates.ts";
import { h2ShopSpider, startH2Site } from "../helpers/h2_server.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";

Deno.test("on the npm build under Node 22, a crawl uses HTTP/2, within a one-stream cap and across a GOAWAY", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-npm-h2-"));
  const certs = await makeCertificates(dir);
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "shop.mjs"), h2ShopSpider("netweir"));
    for (const faults of [{}, { maxStreams: 1, goawayAfter: 5, delayMs: 10 }]) {
      const site = await startH2Site({ certs, items: 12, ...faults });
      try {
        const out = join(pkg.dir, "items.jsonl");
        const stats = join(pkg.dir, "stats.json");
        const ran = await pkg.netweir([
          "crawl",
          "shop.mjs",
          "-a",
          `site=${site.url}`,
          "-O",
          out,
          "-s",
          `stats_file=${stats}`,
          "-s",
          "per_domain=8",
          "-s",
          "retries=0",
          "-s",
          "obey_robots_txt=false",
        ], { NODE_EXTRA_CA_CERTS: certs.ca });
        assert.equal(ran.code, 0, ran.stderr);
        const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
        assert.equal(items.length, 13, JSON.stringify(faults));
        for (const item of items) assert.equal(item.protocol, "h2");
        const record = JSON.parse(await readFile(stats, "utf8"));
        assert.equal(record["downloader/protocol/h2"], 13);
        assert.equal(record.errors, 0);
        const seen = await site.seen();
        assert.ok(seen.log.every((request) => request.version === "2.0"));
        if (faults.maxStreams) {
          assert.equal(seen.maxOpen, 1);
          assert.ok(seen.connections >= 3, `${seen.connections} connections`);
        } else assert.equal(seen.connections, 1);
      } finally {
        await site.close();
      }
    }
  } finally {
    await pkg.remove();
    await rm(dir, { recursive: true, force: true });
  }
});
