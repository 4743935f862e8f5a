/**
 * Item-quality monitors (what spidermon gives Scrapy): rules a crawl's output must meet, judged once at its end. They
 * are the `monitors` setting, so a spider sets them with its other settings and a run replaces them with
 * `-s monitors=JSON` (a job or a schedule of `netweir serve` passes them the same way):
 *
 * ```ts ignore
 * override settings = new Settings({
 *   monitors: { min_items: 100, max_error_rate: 0.05, coverage: [{ field: "title", min: 0.99 }] },
 * });
 * ```
 *
 * This module says what the rules are and checks a value given for them (the settings table reads it, so it sits
 * beside the table rather than in src/spider/, which is above it); src/engine/monitors.ts judges a crawl.
 */

/** A field that items must have in at least `min` (0 to 1) of them. */
export interface CoverageRule {
  /** A top-level field of the item. */
  field: string;
  /** The share of items that must have it with a value (not undefined, null or ""), from 0 to 1. */
  min: number;
}

/** What to do with an item that does not match the schema. */
export type InvalidItemAction = "drop" | "flag";

/** A crawl's monitors: each rule given is judged at its end; the crawl's monitors pass when every one holds. */
export interface Monitors {
  /** Items written, at least. */
  min_items?: number;
  /** Errors (failed requests, callbacks and pipelines) per request sent, at most (0 to 1). */
  max_error_rate?: number;
  /** Items dropped (by pipelines, by the item rule, by the schema), at most. */
  max_dropped?: number;
  /** Fields items must have, each in at least a share of them. */
  coverage?: CoverageRule[];
  /** A JSON Schema every item is validated against (with ajv, loaded only when a schema is set). */
  schema?: Record<string, unknown> | boolean;
  /** An item that does not match the schema: `drop` it (the default) or `flag` it (written, counted). */
  invalid_items?: InvalidItemAction;
  /** Items that did not match the schema, at most (default 0 when a schema is set). */
  max_invalid?: number;
}

const RULES = ["min_items", "max_error_rate", "max_dropped", "coverage", "schema", "invalid_items", "max_invalid"];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isCount = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value >= 0;
const isShare = (value: unknown) => typeof value === "number" && value >= 0 && value <= 1;

function coverageProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return `coverage must be a list of { field, min }, not ${JSON.stringify(value)}`;
  for (const [index, rule] of value.entries()) {
    if (!isObject(rule) || typeof rule.field !== "string" || rule.field === "" || !isShare(rule.min)) {
      return `coverage[${index}] must be { "field": NAME, "min": a share from 0 to 1 }, not ${JSON.stringify(rule)}`;
    }
    const unknown = Object.keys(rule).find((key) => key !== "field" && key !== "min");
    if (unknown) return `coverage[${index}] has an unknown key ${unknown} (known: field, min)`;
  }
  return undefined;
}

/**
 * What is wrong with a value given as monitors, in words (the setting's check: `setting monitors ...`), or undefined
 * when it is a valid set of rules. Whether a schema compiles is checked when the crawl opens it.
 */
export function monitorsProblem(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (!isObject(value)) return "must be an object of monitor rules";
  const unknown = Object.keys(value).find((key) => !RULES.includes(key));
  if (unknown) return `has an unknown rule ${unknown} (known: ${RULES.join(", ")})`;
  for (const name of ["min_items", "max_dropped", "max_invalid"]) {
    if (value[name] !== undefined && !isCount(value[name])) {
      return `rule ${name} must be a whole number of 0 or more, not ${JSON.stringify(value[name])}`;
    }
  }
  if (value.max_error_rate !== undefined && !isShare(value.max_error_rate)) {
    return `rule max_error_rate must be a share from 0 to 1, not ${JSON.stringify(value.max_error_rate)}`;
  }
  if (value.coverage !== undefined) {
    const problem = coverageProblem(value.coverage);
    if (problem) return `rule ${problem}`;
  }
  if (value.schema !== undefined && !isObject(value.schema) && typeof value.schema !== "boolean") {
    return "rule schema must be a JSON Schema (an object)";
  }
  if (value.invalid_items !== undefined && value.invalid_items !== "drop" && value.invalid_items !== "flag") {
    return `rule invalid_items must be drop or flag, not ${JSON.stringify(value.invalid_items)}`;
  }
  return undefined;
}
