/**
 * What a page costs the queue's Redis with the autothrottle on (the default) and off: one process crawls the
 * generated shop with examples/books.ts (about one new link a page) and with LinkyBooks (about 25 links a page, most
 * seen before), each on a fresh redis-server, and the round trips, commands and Redis CPU a page are printed (see
 * scripts/bench/redis_cost.ts). Prints figures, asserts nothing.
 *
 *   deno run -A scripts/bench/queue_cost.ts [BOOKS=3000]
 */
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { measurePageCost, printPageCost } from "./redis_cost.ts";
import { serveShop } from "./shop_server.ts";

const books = Number(runtime.args()[0] ?? 3000);
const SPIDERS: Array<[string, string[]]> = [
  ["books.ts", [join(REPO_ROOT, "examples", "books.ts")]],
  [
    "LinkyBooks (about 25 links a page)",
    [join(REPO_ROOT, "scripts", "bench", "linky_spider.ts"), "--spider", "LinkyBooks", "-a", `books=${books}`],
  ],
];
const MODES: Array<[string, string[]]> = [
  ["autothrottle on (the defaults)", []],
  ["autothrottle off (profile=fast)", ["-s", "profile=fast"]],
];

const shop = await serveShop(books);
try {
  console.log(`shop of ${books} books, one process, ${runtime.name} ${runtime.version}`);
  for (const [mode, settings] of MODES) {
    console.log(mode);
    for (const [label, spider] of SPIDERS) {
      const args = ["crawl", ...spider, "-a", `site=${shop.url}`, "-s", "obey_robots_txt=false", ...settings];
      printPageCost(label, await measurePageCost([...args, "-s", "log_level=warning"]));
    }
  }
} finally {
  await shop.close();
}
