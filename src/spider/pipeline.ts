/** Item pipelines (C12): every item passes through them in order before it is written. */
import type { Spider } from "./spider.ts";
import type { Item } from "./types.ts";

export interface Pipeline {
  /** Called once before the first item. */
  open?(spider: Spider): void | Promise<void>;
  /** Returns the item, a changed item, or null to drop it. */
  process(item: Item, spider: Spider): Item | null | undefined | Promise<Item | null | undefined>;
  /** Called once when the crawl ends. */
  close?(spider: Spider): void | Promise<void>;
}
