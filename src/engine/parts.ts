/**
 * The crawl's optional parts, as one list the crawl opens in order before the first request and closes in the
 * reverse order at the end: the HTTP cache, the deltafetch record, the callback workers, the archives and the
 * browser. Each is there only when its setting asks for it, and each is loaded only then (SQLite, worker threads,
 * Chromium). Adding a part means adding an entry here, not a special case in the crawl loop.
 */
import { UsageError } from "../errors.ts";
import { HttpCache } from "../fetch/cache.ts";
import { Archives } from "../output/archives.ts";
import { VERSION } from "../version.ts";
import type { CrawlContext } from "./context.ts";
import type { SpiderSource } from "./worker_pool.ts";

/** One optional part of a crawl. */
export interface CrawlPart {
  /** What it is, for messages: "failed to close archives". */
  readonly name: string;
  open(): Promise<void>;
  close(): Promise<void>;
  /** Whether failing to close fails the crawl: true for parts that write files a user relies on being whole. */
  readonly mustClose: boolean;
}

/** What the parts need besides the context. */
export interface PartOptions {
  spiderSource: SpiderSource | undefined;
  /** Stops the crawl with a failure (a worker pool that can no longer run callbacks). */
  fail(error: unknown): void;
}

/** The parts a crawl's settings ask for, in the order they open. */
export function crawlParts(ctx: CrawlContext, options: PartOptions): CrawlPart[] {
  const settings = ctx.settings;
  const parts: CrawlPart[] = [];
  if (settings.cache !== null) {
    const dir = settings.cache;
    parts.push({
      name: "cache",
      mustClose: false,
      open: async () => {
        const cache = new HttpCache(dir);
        await cache.open();
        ctx.cache = cache;
      },
      close: () => Promise.resolve(),
    });
  }
  if (settings.deltafetch !== null) {
    const path = settings.deltafetch;
    parts.push({
      name: "deltafetch",
      mustClose: false,
      open: async () => {
        // Loaded only here: a crawl without deltafetch never loads SQLite.
        const { Deltafetch } = await import("./deltafetch.ts");
        ctx.deltafetch = await Deltafetch.open(path);
      },
      close: () => Promise.resolve(ctx.deltafetch?.close()),
    });
  }
  if (settings.workers > 0) {
    const count = settings.workers;
    parts.push({
      name: "workers",
      mustClose: false,
      open: async () => {
        if (!options.spiderSource) {
          throw new UsageError(
            "workers need the spider's file to load it from: run the spider with netweir crawl, or give runSpider its " +
              "spiderFile",
          );
        }
        const { WorkerPool } = await import("./worker_pool.ts");
        ctx.workers = await WorkerPool.start(
          count,
          ctx.spider,
          options.spiderSource,
          ctx.log,
          ctx.admission.maxDepth,
        );
        ctx.workers.onFatal(options.fail);
      },
      close: () => Promise.resolve(ctx.workers?.close()),
    });
  }
  if (settings.warc !== null || settings.har !== null) {
    const paths = { warc: settings.warc, har: settings.har };
    parts.push({
      name: "archives",
      mustClose: true,
      open: async () => {
        ctx.archives = await Archives.open(paths, VERSION);
      },
      close: async () => await ctx.archives?.close(),
    });
  }
  // The browser opens on the first request that renders (see Fetchers); closing it is always this part's job.
  parts.push({
    name: "browser",
    mustClose: false,
    open: () => Promise.resolve(),
    close: () => ctx.fetchers.close(),
  });
  return parts;
}
