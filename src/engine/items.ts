/** Items on their way out: through the spider's pipelines, then to the feeds. */
import type { Pipeline } from "../spider/pipeline.ts";
import type { Spider } from "../spider/spider.ts";
import type { Item, Logger } from "../spider/types.ts";
import type { Stats } from "./stats.ts";
import { ItemRefusal, normaliseItem } from "./item_check.ts";
import type { ItemMonitor } from "./item_monitor.ts";

/** Where items end up: the feed files, or anything else with the same two methods. */
export interface ItemSink {
  /** Writes one page's items; resolves once they are handed to the operating system. */
  write(items: Item[]): Promise<void>;
  /** Called once at the end of the crawl: flushes and closes what `write` wrote to. */
  close(): Promise<void>;
}

/** Runs items through pipelines in order; a pipeline returning null (or throwing) drops the item. */
export class PipelineChain {
  readonly #pipelines: readonly Pipeline[];
  readonly #spider: Spider;
  readonly #stats: Stats;
  readonly #log: Logger;
  readonly #monitor: ItemMonitor | undefined;

  /** `monitor` sees each item last, after the pipelines (the item monitors: schema and coverage). */
  constructor(spider: Spider, stats: Stats, log: Logger, monitor?: ItemMonitor) {
    this.#spider = spider;
    this.#pipelines = spider.pipelines;
    this.#stats = stats;
    this.#log = log;
    this.#monitor = monitor;
  }

  async open(): Promise<void> {
    for (const pipeline of this.#pipelines) await pipeline.open?.(this.#spider);
  }

  /**
   * Checks each item against the one rule of what an item holds (item_check.ts), then runs it through the
   * pipelines, and checks what they return the same way: the feeds get only plain JSON, all the same items.
   * `url` is the page the items came from, for the line that names a refused one.
   */
  async process(items: Item[], url = "an unknown page"): Promise<Item[]> {
    const kept: Item[] = [];
    for (const given of items) {
      let item = this.#checked(given, url, "");
      for (const pipeline of this.#pipelines) {
        if (item === undefined) break;
        try {
          const result = await pipeline.process(item, this.#spider);
          if (result === null || result === undefined) {
            this.#drop("pipeline");
            item = undefined;
          } else item = result;
        } catch (error) {
          this.#stats.inc("errors");
          this.#log.error(`pipeline ${pipeline.constructor.name} failed: ${(error as Error).message ?? error}`);
          this.#drop("pipeline");
          item = undefined;
        }
      }
      // Pipelines may add values of their own (in place, too): what they hand on passes the same rule.
      if (item !== undefined && this.#pipelines.length > 0) item = this.#checked(item, url, " after the pipelines");
      if (item !== undefined && this.#monitor && !this.#monitor.keep(item, url)) {
        this.#drop("schema");
        item = undefined;
      }
      if (item !== undefined) kept.push(item);
    }
    return kept;
  }

  /** The item as plain JSON, or undefined after logging and counting why it was refused. */
  #checked(item: Item, url: string, source: string): Item | undefined {
    try {
      return normaliseItem(item);
    } catch (error) {
      if (!(error instanceof ItemRefusal)) throw error;
      this.#log.warning(`dropped an item${source} from ${url}: ${error.message}`);
      this.#drop(error.reason);
      return undefined;
    }
  }

  #drop(reason: string): void {
    this.#stats.inc("items_dropped");
    this.#stats.inc(`items_dropped_${reason}`);
  }

  async close(): Promise<void> {
    for (const pipeline of this.#pipelines) {
      try {
        await pipeline.close?.(this.#spider);
      } catch (error) {
        this.#log.error(`pipeline ${pipeline.constructor.name} failed to close: ${(error as Error).message ?? error}`);
      }
    }
  }
}
