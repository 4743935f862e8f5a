/** Items on their way out: through the spider's pipelines, then to the feeds. */
import type { Pipeline } from "../spider/pipeline.ts";
import type { Spider } from "../spider/spider.ts";
import type { Item, Logger } from "../spider/types.ts";
import type { Stats } from "./stats.ts";

/** Where items end up: the feed files, or anything else with the same two methods. */
export interface ItemSink {
  /** Writes one page's items; resolves once they are handed to the operating system. */
  write(items: Item[]): Promise<void>;
  close(): Promise<void>;
}

/** Runs items through pipelines in order; a pipeline returning null (or throwing) drops the item. */
export class PipelineChain {
  readonly #pipelines: readonly Pipeline[];
  readonly #spider: Spider;
  readonly #stats: Stats;
  readonly #log: Logger;

  constructor(spider: Spider, stats: Stats, log: Logger) {
    this.#spider = spider;
    this.#pipelines = spider.pipelines;
    this.#stats = stats;
    this.#log = log;
  }

  async open(): Promise<void> {
    for (const pipeline of this.#pipelines) await pipeline.open?.(this.#spider);
  }

  async process(items: Item[]): Promise<Item[]> {
    if (this.#pipelines.length === 0) return items;
    const kept: Item[] = [];
    for (let item of items) {
      let dropped = false;
      for (const pipeline of this.#pipelines) {
        try {
          const result = await pipeline.process(item, this.#spider);
          if (result === null || result === undefined) {
            dropped = true;
            break;
          }
          item = result;
        } catch (error) {
          this.#stats.inc("errors");
          this.#log.error(`pipeline ${pipeline.constructor.name} failed: ${(error as Error).message ?? error}`);
          dropped = true;
          break;
        }
      }
      if (dropped) this.#stats.inc("items_dropped");
      else kept.push(item);
    }
    return kept;
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
