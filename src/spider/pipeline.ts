/** Item pipelines (C12): every item passes through them in order before it is written. */
import type { Spider } from "./spider.ts";
import type { Item } from "./types.ts";

/** An item pipeline: sees every item in turn, and may change or drop it. */
export interface Pipeline {
  /** Called once before the first item. */
  open?(spider: Spider): void | Promise<void>;
  /** Returns the item, a changed item, or null to drop it. */
  process(item: Item, spider: Spider): Item | null | undefined | Promise<Item | null | undefined>;
  /** Called once when the crawl ends. */
  close?(spider: Spider): void | Promise<void>;
}
