/**
 * What the item monitors need to see of each item, on its way to the feeds after the pipelines: whether it matches
 * the schema (an item that does not is dropped, or flagged: written and counted), and which of the coverage fields
 * it has. Everything it counts goes in the crawl's stats, so a checkpointed crawl carries the counts on:
 * `items_invalid` and `items_invalid_FIELD` for items breaking the schema (per field they break it on), and
 * `items_with_FIELD` for the items written with each coverage field. src/engine/monitors.ts judges them at the end.
 */
import type { Monitors } from "../settings/monitor_rules.ts";
import { missing } from "../spider/contracts.ts";
import type { Item, Logger } from "../spider/types.ts";
import type { ItemSchema } from "./item_schema.ts";
import type { Stats } from "./stats.ts";

/** Looks at each item written; built only when the crawl has monitors. */
export class ItemMonitor {
  readonly #rules: Monitors;
  readonly #fields: readonly string[];
  readonly #stats: Stats;
  readonly #log: Logger;
  #schema: ItemSchema | undefined;

  /** `schema` is the rules' schema compiled, when the caller compiled it already (see open). */
  constructor(rules: Monitors, stats: Stats, log: Logger, schema?: ItemSchema) {
    this.#rules = rules;
    this.#fields = [...new Set((rules.coverage ?? []).map((rule) => rule.field))];
    this.#stats = stats;
    this.#log = log;
    this.#schema = schema;
  }

  /** Compiles the schema if there is one and it was not given compiled: ajv is loaded only then. */
  async open(): Promise<void> {
    if (this.#schema === undefined && this.#rules.schema !== undefined) {
      const { compileItemSchema } = await import("./item_schema.ts");
      this.#schema = await compileItemSchema(this.#rules.schema);
    }
  }

  /** Whether the item goes on to the feeds: false for one that breaks the schema when such items are dropped. */
  keep(item: Item, url: string): boolean {
    const invalid = this.#schema?.invalidFields(item) ?? [];
    if (invalid.length > 0) {
      this.#stats.inc("items_invalid");
      for (const field of invalid) this.#stats.inc(`items_invalid_${field}`);
      if ((this.#rules.invalid_items ?? "drop") === "drop") {
        this.#log.debug(`dropped an item from ${url}: it breaks the schema on ${invalid.join(", ")}`);
        return false;
      }
    }
    for (const field of this.#fields) if (!missing(item[field])) this.#stats.inc(`items_with_${field}`);
    return true;
  }
}
