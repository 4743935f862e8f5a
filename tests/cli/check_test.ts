/**
 * `netweir check FILE` end to end (issue 25, item 4): the example spider's contracts against the local copy of the
 * shop (examples/site served on 127.0.0.1), a broken selector, a malformed table, and --cache replaying offline.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { serveDirectory } from "../../scripts/demo.ts";
import { REPO_ROOT } from "../helpers/cli.ts";
import { runCli, withTempDir } from "./_run.ts";

const BOOKS = join(REPO_ROOT, "examples", "books.ts");
const SITE = join(REPO_ROOT, "examples", "site");
const MOD = join(REPO_ROOT, "mod.ts");

/** examples/books.ts copied into `dir` (importing this checkout's mod.ts), with `change` applied to its text. */
async function copyOfBooks(dir: string, change: (text: string) => string): Promise<string> {
  const text = (await readFile(BOOKS, "utf8")).replace('from "../mod.ts"', `from ${JSON.stringify(MOD)}`);
  const path = join(dir, "books.ts");
  await writeFile(path, change(text));
  return path;
}

Deno.test("check runs the example spider's contracts against the local shop and they pass", async () => {
  const site = await serveDirectory(SITE);
  try {
    const result = await runCli(["check", BOOKS, "-a", `site=${site.url}`]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const rows = result.stdout.split("\n");
    assert.match(rows[0], new RegExp(`^PASS  Books\\.parse      ${site.url} +0 items, 21 requests$`));
    assert.match(
      rows[1],
      /^PASS {2}Books\.parseBook {2}http:\/\/127\.0\.0\.1:\d+\/catalogue\/the-paper-compass_1\/index\.html {2}1 items, 0 requests$/,
    );
    assert.equal(rows[2], "2 contracts: 2 passed, 0 failed");
    assert.equal(result.stderr, "");
  } finally {
    await site.close();
  }
});

Deno.test("check fails (exit 1) naming the contract and the first item that broke it when a selector breaks", async () => {
  const site = await serveDirectory(SITE);
  try {
    await withTempDir(async (dir) => {
      const broken = await copyOfBooks(
        dir,
        (text) => text.replace('".product_main .price_color"', '".product_main .price"'),
      );
      const result = await runCli(["check", broken, "-a", `site=${site.url}`]);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stdout, /^PASS {2}Books\.parse /m);
      assert.match(
        result.stdout,
        /^FAIL {2}Books\.parseBook {2}\S+ {2}item 1 has no price: \{"title":"The Paper Compass","price":"","availability":/m,
      );
      assert.match(result.stdout, /^2 contracts: 1 passed, 1 failed$/m);
      assert.equal(result.stderr, "netweir: 1 of 2 contracts failed\n");
    });
  } finally {
    await site.close();
  }
});

Deno.test("check --cache DIR fills the cache, then passes with the site gone", async () => {
  const site = await serveDirectory(SITE);
  await withTempDir(async (dir) => {
    const cache = join(dir, "pages");
    try {
      const online = await runCli(["check", BOOKS, "-a", `site=${site.url}`, "--cache", cache]);
      assert.equal(online.code, 0, online.stdout + online.stderr);
    } finally {
      await site.close();
    }
    const offline = await runCli(["check", BOOKS, "-a", `site=${site.url}`, "--cache", cache]);
    assert.equal(offline.code, 0, offline.stdout + offline.stderr);
    assert.match(offline.stdout, /^2 contracts: 2 passed, 0 failed$/m);
    const uncached = await runCli(["check", BOOKS, "-a", `site=${site.url}`, "-s", "retries=0"]);
    assert.equal(uncached.code, 1);
    assert.match(uncached.stdout, /^FAIL {2}Books\.parse +\S+ +fetching \S+ failed: connection refused/m);
  });
});

Deno.test("check refuses a malformed contracts table with one line and exit 2", async () => {
  await withTempDir(async (dir) => {
    const cases: Array<[string, string, string]> = [
      ["parseBook: {", "parseBok: {", "netweir: Books.contracts: parseBok is not a method of the spider\n"],
      [
        "items: 1,",
        "itemz: 1,",
        "netweir: Books.contracts.parseBook: unknown field itemz (known: url, items, requests, fields, meta, cbKwargs, render)\n",
      ],
      [
        "requests: 21",
        "requests: [5, 2]",
        "netweir: Books.contracts.parse: requests must be a whole number or [min, max], not [5,2]\n",
      ],
    ];
    for (const [from, to, line] of cases) {
      const file = await copyOfBooks(dir, (text) => text.replace(from, to));
      const result = await runCli(["check", file, "-a", "site=http://127.0.0.1:1/"]);
      assert.equal(result.code, 2, `${to}: ${result.stderr}`);
      assert.equal(result.stderr, line);
    }
  });
});
