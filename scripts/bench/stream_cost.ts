/**
 * What the shared items stream (`-o redis://...?stream=KEY`) adds to a page's cost in the queue's Redis: one process
 * crawls the generated shop with examples/books.ts (an item on most pages) on a fresh redis-server, without and with
 * the stream on the same server, and the round trips, commands and Redis CPU a page are printed (see
 * scripts/bench/redis_cost.ts). Prints figures, asserts nothing.
 *
 *   deno run -A scripts/bench/stream_cost.ts [BOOKS=2000]
 */
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { REPO_ROOT } from "../../tests/helpers/cli.ts";
import { measurePageCost, printPageCost } from "./redis_cost.ts";
import { serveShop } from "./shop_server.ts";

const books = Number(runtime.args()[0] ?? 2000);
const shop = await serveShop(books);
try {
  console.log(`shop of ${books} books, one process, examples/books.ts, ${runtime.name} ${runtime.version}`);
  const crawl = [
    "crawl",
    join(REPO_ROOT, "examples", "books.ts"),
    "-a",
    `site=${shop.url}`,
    "-s",
    "obey_robots_txt=false",
  ];
  const quiet = ["-s", "log_level=warning"];
  printPageCost("stream off", await measurePageCost([...crawl, ...quiet]));
  printPageCost("stream on", await measurePageCost((url) => [...crawl, ...quiet, "-o", `${url}?stream=items`]));
} finally {
  await shop.close();
}
