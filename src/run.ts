/** Running a spider from code, without the command line: the same assembly as `netweir crawl` (engine/assemble.ts). */
import { fileURLToPath } from "node:url";
import { assembleCrawl } from "./engine/assemble.ts";
import { stopOnSignals } from "./engine/signal_stop.ts";
import type { StatsRecord } from "./engine/stats.ts";
import { spiderClassName } from "./load/spiders.ts";
import { Settings, type SettingsInit } from "./settings/settings.ts";
import { Spider, type SpiderClass } from "./spider/spider.ts";
import { applySpiderArgs } from "./spider/spider_args.ts";

/** How {@link runSpider} runs a spider: settings over its own, feed files, and what `netweir crawl` would add. */
export interface RunOptions {
  /** Settings over the spider's own (as `-s` on the command line). */
  settings?: Settings | SettingsInit;
  /** Feed files (as `-o`); existing files are appended to unless `overwrite`. */
  output?: string[];
  /** Truncate the feed files first instead of appending to them (as `-O`). */
  overwrite?: boolean;
  /**
   * The module that exports the spider's class (`import.meta.url` in that module, or a path), for callback workers
   * (the `workers` setting): each worker loads the spider from it, as `netweir crawl` loads its file. The workers
   * build their own instances, so what the spider is given should come as `spiderArgs`, not as changes to an
   * instance.
   */
  spiderFile?: string | URL;
  /** Spider arguments, "NAME=VALUE" as `-a` takes them: set on the spider, and on the spiders the workers build. */
  spiderArgs?: string[];
  /**
   * Stop the crawl cleanly on SIGINT or SIGTERM, and end the process on a second one (exit status 130 or 143), as
   * `netweir crawl` does. Off by default: a library does not take Ctrl-C from the program using it.
   */
  stopOnSignals?: boolean;
}

/** A spider file as a path: a file: URL (`import.meta.url`) is turned into one, a path is kept. */
function spiderFilePath(file: string | URL): string {
  return file instanceof URL || file.startsWith("file:") ? fileURLToPath(file) : file;
}

/**
 * Runs a spider to the end in this process and returns its stats. With a `queue` setting it takes part in a shared
 * crawl, as `netweir crawl` does: it ends when the crawl does, and fails with QueueError when the queue is lost.
 *
 * @example A spider run against a site served on 127.0.0.1, its items written to a feed file
 * ```ts
 * import { type Page, runSpider, Spider } from "netweir";
 * import assert from "node:assert/strict";
 *
 * const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response(`<ul><li>Dune</li><li>Emma</li></ul>`, { headers: { "content-type": "text/html" } }));
 *
 * class Shelf extends Spider {
 *   override startUrls = [`http://127.0.0.1:${site.addr.port}/`];
 *   override *parse(page: Page) {
 *     for (const title of page.css("li").texts()) yield { title };
 *   }
 * }
 *
 * const dir = await Deno.makeTempDir();
 * const stats = await runSpider(Shelf, {
 *   output: [`${dir}/books.jsonl`],
 *   settings: { logLevel: "error", obeyRobotsTxt: false },
 * });
 * await site.shutdown();
 *
 * assert.equal(stats.items, 2);
 * const lines = (await Deno.readTextFile(`${dir}/books.jsonl`)).trim().split("\n");
 * assert.deepEqual(lines.map((line) => JSON.parse(line).title), ["Dune", "Emma"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function runSpider(spider: Spider | SpiderClass, options: RunOptions = {}): Promise<StatsRecord> {
  const instance = spider instanceof Spider ? spider : new spider();
  const args = [...options.spiderArgs ?? []];
  applySpiderArgs(instance, args);
  const overrides = options.settings instanceof Settings ? options.settings : new Settings(options.settings ?? {});
  const spiderSource = options.spiderFile === undefined ? undefined : {
    file: spiderFilePath(options.spiderFile),
    spider: spiderClassName(instance.constructor as SpiderClass),
    args,
  };
  const { crawl, log } = await assembleCrawl(instance, {
    overrides,
    outputs: (options.output ?? []).map((path) => ({ path, overwrite: options.overwrite ?? false })),
    spiderSource,
  });
  const signals = options.stopOnSignals ? await stopOnSignals(crawl, log) : undefined;
  try {
    return await crawl.run();
  } finally {
    signals?.remove();
  }
}
