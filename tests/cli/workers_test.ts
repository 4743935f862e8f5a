/** `netweir crawl -s workers=N`: callbacks run in worker threads, each with the spider loaded from its file. */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runSpider, Settings, Spider, UsageError } from "../../mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { runCli, withTempDir } from "./_run.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

/**
 * A shop spider whose book callback says where it ran; `crash=N` makes the callback of book N kill its worker, and
 * `exit=N` makes it end its worker on purpose (`Deno.exit(3)`, or `close()` with `how=close`).
 */
const SPIDER = `import { type Page, Request, Spider } from ${MOD};
export class Shop extends Spider {
  site = "";
  tag = "";
  crash = "";
  exit = "";
  how = "";
  override async *start() {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  async parseBook(page: Page) {
    if (this.exit && page.url.includes("_" + this.exit + "/")) {
      if (this.how === "close") (globalThis as unknown as { close(): void }).close();
      else Deno.exit(3);
    }
    // Slow callbacks, so that the books fetched meanwhile wait and go to a worker in runs.
    if (this.exit) for (const until = Date.now() + 20; Date.now() < until;);
    if (this.crash && page.url.includes("_" + this.crash + "/")) {
      setTimeout(() => { throw new Error("the worker goes down"); }, 0);
      await new Promise(() => {});
    }
    const inWorker = typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";
    return { url: page.url, title: page.css("h1").text(), tag: this.tag, inWorker };
  }
}
`;

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** Crawls a fixture shop of `books` with the spider above and `-s workers=2`, plus `args`; the items and stats. */
async function crawlWithWorkers(books: number, args: string[]) {
  const site = await startFixtureSite({ books });
  try {
    let outcome: {
      code: number | null;
      stderr: string;
      items: Array<Record<string, unknown>>;
      stats: Record<string, unknown>;
    };
    await withTempDir(async (dir) => {
      await writeFile(join(dir, "shop.ts"), SPIDER);
      const out = join(dir, "items.jsonl");
      const stats = join(dir, "stats.json");
      const shop = ["-a", `site=${site.url}shop/`, "-O", out, "--stats-file", stats, "-s", "workers=2"];
      const result = await runCli(["crawl", join(dir, "shop.ts"), ...shop, ...args]);
      outcome = {
        code: result.code,
        stderr: result.stderr,
        items: jsonLines(await readFile(out, "utf8")),
        stats: JSON.parse(await readFile(stats, "utf8")),
      };
    });
    return outcome!;
  } finally {
    await site.close();
  }
}

Deno.test("with workers=2 every callback runs in a worker, with the spider's arguments, and every item is written", async () => {
  const { code, stderr, items } = await crawlWithWorkers(30, ["-a", "tag=from-a"]);
  assert.equal(code, 0, stderr);
  assert.equal(items.length, 30);
  assert.equal(new Set(items.map((item) => item.url)).size, 30);
  assert.ok(items.every((item) => item.inWorker === true), "a callback ran in the main thread");
  assert.ok(items.every((item) => item.tag === "from-a"), "the workers' spider lacked the -a argument");
});

Deno.test("a worker that dies fails its page, not the crawl: the other pages are written and a new worker goes on", async () => {
  const { code, stderr, items, stats } = await crawlWithWorkers(20, ["-a", "crash=7"]);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /WARNING a callback worker died \(Uncaught the worker goes down\); starting another/);
  assert.doesNotMatch(stderr, /Uncaught \(in worker|\n\s+at /, "the runtime printed the worker's error with its stack");
  const urls = items.map((item) => String(item.url));
  assert.equal(urls.length, 19);
  assert.ok(!urls.some((url) => url.includes("_7/")));
  assert.equal(stats.errors_callback, 1);
  assert.equal(stats.finish_reason, "finished");
});

for (const how of ["exit", "close"]) {
  Deno.test(`a callback that ends its worker (${how === "exit" ? "Deno.exit" : "close()"}) loses only its page`, async () => {
    const { code, stderr, items, stats } = await crawlWithWorkers(20, ["-a", "exit=7", "-a", `how=${how}`]);
    assert.equal(code, 0, stderr);
    const said = how === "exit" ? "Deno.exit\\(3\\) was called" : "close\\(\\) was called";
    assert.match(stderr, new RegExp(`WARNING a callback worker died \\(${said}\\); starting another`));
    const urls = items.map((item) => String(item.url));
    assert.equal(urls.length, 19, urls.join("\n"));
    assert.equal(new Set(urls).size, 19);
    assert.ok(!urls.some((url) => url.includes("_7/")));
    assert.equal(stats.errors_callback, 1);
    assert.equal(stats.finish_reason, "finished");
  });
}

Deno.test("runSpider refuses workers, which need the spider's file", async () => {
  class Inline extends Spider {
    override settings = new Settings({ workers: 2, logLevel: "error" });
  }
  await assert.rejects(
    runSpider(Inline),
    (error) => error instanceof UsageError && /netweir crawl/.test(error.message),
  );
});

Deno.test("when no worker can load the spider any more, the crawl stops with exit 1 saying why, rather than hang", async () => {
  const site = await startFixtureSite({ books: 5 });
  try {
    await withTempDir(async (dir) => {
      // Loads until its first callback marks it broken and takes its worker down: the next worker cannot load it.
      const spider = `import { existsSync, writeFileSync } from "node:fs";
import { type Page, Request, Spider } from ${MOD};
const marker = new URL("./broken-now", import.meta.url);
if (existsSync(marker)) throw new Error("this spider cannot be loaded any more");
export class Shop extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site });
    yield new Request({ url: this.site + "catalogue/page-1.html" });
  }
  override async parse(_page: Page) {
    writeFileSync(marker, "");
    setTimeout(() => { throw new Error("the worker goes down"); }, 0);
    await new Promise(() => {});
  }
}
`;
      await writeFile(join(dir, "shop.ts"), spider);
      const result = await runCli([
        "crawl",
        join(dir, "shop.ts"),
        "-a",
        `site=${site.url}shop/`,
        "-s",
        "workers=1",
        "-s",
        "log_level=error",
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        /netweir: a callback worker could not load the spider: .*cannot be loaded any more\n$/,
      );
      assert.doesNotMatch(result.stderr, /Uncaught \(in worker/);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a spider that follows every link crawls the same pages with workers as without: repeats dropped alike", async () => {
  // Most links a page yields were queued already (menus, pagination, the same book twice); with workers the worker
  // drops those itself, from what the crawl told it it queued. Same pages, same items, same refusals either way.
  const everyLink = `import { type Page, Request, Spider } from ${MOD};
export class Every extends Spider {
  site = "";
  override async *start() {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    yield { url: page.url, depth: page.request.depth };
    for (const href of page.css("a").attrs("href")) yield page.follow(href);
    yield page.follow("mailto:shop@example.com");
  }
}
`;
  const site = await startFixtureSite({ books: 40 });
  try {
    const crawl = async (extra: string[]) => {
      let outcome: { items: string[]; stats: Record<string, unknown> } | undefined;
      await withTempDir(async (dir) => {
        await writeFile(join(dir, "every.ts"), everyLink);
        const out = join(dir, "items.jsonl");
        const stats = join(dir, "stats.json");
        const args = ["-a", `site=${site.url}shop/`, "-O", out, "--stats-file", stats, "-s", "max_depth=2", ...extra];
        const result = await runCli(["crawl", join(dir, "every.ts"), ...args]);
        assert.equal(result.code, 0, result.stderr);
        const items = jsonLines(await readFile(out, "utf8"));
        outcome = {
          items: items.map((item) => `${item.depth} ${item.url}`).sort(),
          stats: JSON.parse(await readFile(stats, "utf8")) as Record<string, unknown>,
        };
      });
      return outcome!;
    };
    const inProcess = await crawl([]);
    const inWorker = await crawl(["-s", "workers=1"]);
    assert.ok(inProcess.items.length > 40, `only ${inProcess.items.length} pages`);
    assert.deepEqual(inWorker.items, inProcess.items);
    for (const key of ["pages", "items", "dropped"]) assert.deepEqual(inWorker.stats[key], inProcess.stats[key], key);
    // The refusals the crawl counts are there: links past max_depth, and the mailto: of every page.
    const dropped = inProcess.stats.dropped as Record<string, number>;
    assert.ok(dropped.depth > 0 && dropped.scheme === inProcess.items.length, JSON.stringify(dropped));
  } finally {
    await site.close();
  }
});
