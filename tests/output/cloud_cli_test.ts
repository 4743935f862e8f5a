import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli, startCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3Server } from "../helpers/s3_server.ts";
import { withTempDir } from "./temp_dir.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

const SHOP_SPIDER = `import { Request, Spider } from ${MOD};
export class Shop extends Spider {
  override name = "shop";
  site = "http://127.0.0.1:1/";
  override async *start() { yield new Request({ url: this.site }); }
  override *parse(page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) yield page.follow(href, { callback: this.book });
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  book(page) { return { title: page.css("h1").text(), url: page.url }; }
}
`;

/** A spider whose one page takes `ms` to answer, so a test can act while the crawl runs. */
const SLOW_SPIDER = `import { Request, Spider } from ${MOD};
export class Slow extends Spider {
  site = "http://127.0.0.1:1/";
  override async *start() { yield new Request({ url: this.site + "slow?ms=1500" }); }
  override parse(page) { return { url: page.url, status: page.status }; }
}
`;

function s3Env(endpoint: string, home: string, tmp: string): Record<string, string | undefined> {
  return {
    AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_ENDPOINT_URL_S3: undefined,
    AWS_ENDPOINT_URL: endpoint,
    HOME: home,
    TMPDIR: tmp,
  };
}

Deno.test("netweir crawl -o s3://BUCKET/%(name)s/%(time)s.jsonl uploads every item when the crawl ends", async () => {
  const site = await startFixtureSite({ books: 30 });
  const s3 = await startS3Server({ buckets: ["feeds"] });
  try {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "shop.ts"), SHOP_SPIDER);
      const ran = await runCli(
        ["crawl", join(dir, "shop.ts"), "-a", `site=${site.url}shop/`, "-o", "s3://feeds/%(name)s/%(time)s.jsonl"],
        { env: s3Env(s3.endpoint, dir, dir) },
      );
      assert.equal(ran.code, 0, ran.stderr);
      const keys = await s3.listKeys("feeds");
      assert.equal(keys.length, 1);
      assert.match(keys[0], /^shop\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.jsonl$/);
      assert.match(
        ran.stderr,
        new RegExp(`Stored jsonl feed \\(30 items\\) in: s3://feeds/${keys[0].replace(".", "\\.")}`),
      );
      const object = await s3.getObject("feeds", keys[0]);
      const items = new TextDecoder().decode(object!.body).trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(items.length, 30);
      assert.equal(new Set(items.map((item) => item.url)).size, 30);
      const spools = (await readdir(dir)).filter((name) => name.startsWith("netweir-spool-"));
      assert.deepEqual(spools, [], "no spool left behind");
    });
  } finally {
    await s3.stop();
    await site.close();
  }
});

Deno.test("a malformed address exits 2, a missing bucket or wrong keys exit 1, before any page is fetched", async () => {
  const site = await startFixtureSite({ books: 5 });
  const s3 = await startS3Server({ buckets: ["feeds"] });
  try {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "shop.ts"), SHOP_SPIDER);
      const crawl = (output: string, env: Record<string, string | undefined> = {}) =>
        runCli(["crawl", join(dir, "shop.ts"), "-a", `site=${site.url}shop/`, "-o", output], {
          env: { ...s3Env(s3.endpoint, dir, dir), ...env },
        });
      const malformed = await crawl("s3://Feeds!/items.jsonl");
      assert.equal(malformed.code, 2);
      assert.equal(
        malformed.stderr,
        "netweir: output s3://Feeds!/items.jsonl: Feeds! is not a valid bucket name (3-63 lower-case letters, digits, dots and dashes)\n",
      );
      const missing = await crawl("s3://nowhere/items.jsonl");
      assert.equal(missing.code, 1);
      assert.match(
        missing.stderr,
        /^netweir: bucket nowhere does not exist in S3 at http:\/\/127\.0\.0\.1:\d+ \(NoSuchBucket[^\n]*\)\n$/,
      );
      const wrong = await crawl("s3://feeds/items.jsonl", { AWS_SECRET_ACCESS_KEY: "hunter2-not-it" });
      assert.equal(wrong.code, 1);
      assert.match(
        wrong.stderr,
        /^netweir: S3 at \S+ refused access to bucket feeds with credentials from the environment \(SignatureDoesNotMatch/,
      );
      assert.ok(!wrong.stderr.includes("hunter2"), wrong.stderr);
      const none = await crawl("s3://feeds/items.jsonl", {
        AWS_ACCESS_KEY_ID: undefined,
        AWS_SECRET_ACCESS_KEY: undefined,
      });
      assert.equal(none.code, 1);
      assert.match(
        none.stderr,
        /^netweir: no AWS credentials found for s3:\/\/ output \(looked in the environment and profile default of /,
      );
      const queued = await runCli(
        ["crawl", join(dir, "shop.ts"), "-o", "s3://feeds/items.jsonl", "-s", "queue=redis://127.0.0.1:1/0"],
        { env: s3Env(s3.endpoint, dir, dir) },
      );
      assert.equal(queued.code, 2);
      assert.match(queued.stderr, /does not mix with a shared queue/);
      assert.deepEqual(site.requests, [], "no page was fetched");
    });
  } finally {
    await s3.stop();
    await site.close();
  }
});

Deno.test("a crawl whose upload fails exits 1 with one line naming the kept spool, which holds the items", async () => {
  const site = await startFixtureSite();
  const s3 = await startS3Server({ buckets: ["feeds"] });
  try {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "slow.ts"), SLOW_SPIDER);
      const crawl = startCli(
        [
          "crawl",
          join(dir, "slow.ts"),
          "-a",
          `site=${site.url}`,
          "-o",
          "s3://feeds/slow.jsonl",
          "-s",
          "log_level=error",
        ],
        { env: s3Env(s3.recordingEndpoint, dir, dir) },
      );
      // The page is fetched only once the store has answered the check; while it is being fetched, the store goes.
      for (let i = 0; i < 1500 && site.hits("/slow") === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(site.hits("/slow"), 1, `the crawl reached its page: ${JSON.stringify(crawl.output())}`);
      assert.deepEqual(s3.recorded, ["GET /feeds?max-keys=0"], "the check came first, and nothing else yet");
      await s3.stop();
      const ran = await crawl.wait();
      assert.equal(ran.code, 1, ran.stderr);
      const match =
        /^netweir: upload to s3:\/\/feeds\/slow\.jsonl failed: cannot reach S3 at [^;]+; the items are kept in (\S+)\n$/
          .exec(ran.stderr);
      assert.ok(match, ran.stderr);
      assert.ok(match[1].startsWith(dir), match[1]);
      const kept = (await readFile(match[1], "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.deepEqual(kept, [{ url: `${site.url}slow?ms=1500`, status: 200 }]);
    });
  } finally {
    await s3.stop();
    await site.close();
  }
});
