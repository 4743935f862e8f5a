/**
 * The one rule for what an item may hold, applied once before any pipeline or feed sees it, so every feed of a crawl
 * holds the same items. JSON values pass as they are (plain objects, arrays, strings, booleans, null and finite
 * numbers). A value with one obvious JSON form is converted: a Date to its ISO string, a URL to its href, anything
 * else with a `toJSON()` to what that returns, a Selection of one element to its text (none: null). A field whose
 * value is undefined is left out, as JSON leaves it out. Anything else (a Map, a Set, a class instance, a BigInt,
 * NaN, a function, a selection of several elements, a cycle) has no single JSON form: the item is refused, with the
 * field's path and the reason, and the other feeds never see it either.
 *
 * Without it each feed made up its own answer: a Map became `{}` everywhere, silently, and a BigInt made the JSON
 * Lines feed throw after the XML feed had written the item.
 */
import { Selection } from "../spider/selection.ts";
import type { Item } from "../spider/types.ts";

/** Why an item was refused: the field (`price`, `offers[2].amount`) and what was wrong with its value. */
export class ItemRefusal extends Error {
  override name = "ItemRefusal";
  readonly field: string;
  /** A short name for the stats (`items_dropped_REASON`). */
  readonly reason: string;
  constructor(field: string, problem: string, reason: string) {
    super(`field ${field} ${problem}`);
    this.field = field;
    this.reason = reason;
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (value as object).constructor?.name;
  return name ? `a ${name}` : "an object";
}

function fieldPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const plain = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  if (parent === "") return plain;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${plain}]`;
}

/** The value as JSON, or an ItemRefusal. `seen` holds the objects above it (a cycle has no JSON form). */
function toJsonValue(value: unknown, field: string, seen: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value)) return value;
      throw new ItemRefusal(field, `is ${value}, which JSON cannot hold`, "not_finite");
    case "bigint":
      throw new ItemRefusal(field, "is a BigInt; convert it to a string or a number first", "bigint");
    case "undefined":
      return undefined;
    case "function":
    case "symbol":
      throw new ItemRefusal(field, `is ${describe(value)}, which has no JSON form`, "not_json");
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Selection) {
    if (object.length === 0) return null;
    if (object.length === 1) return object.text();
    throw new ItemRefusal(
      field,
      `is a Selection of ${object.length} elements; take .text() of one, or .texts() for all`,
      "selection",
    );
  }
  if (seen.has(object)) throw new ItemRefusal(field, "refers back to an object that contains it", "cycle");
  if (Array.isArray(object)) {
    seen.add(object);
    const out = object.map((entry, index) => {
      const converted = toJsonValue(entry, fieldPath(field, index), seen);
      return converted === undefined ? null : converted; // as JSON.stringify writes a hole
    });
    seen.delete(object);
    return out;
  }
  if (isPlainObject(object)) {
    seen.add(object);
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(object)) {
      const converted = toJsonValue(entry, fieldPath(field, key), seen);
      if (converted !== undefined) out[key] = converted;
    }
    seen.delete(object);
    return out;
  }
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    // Date, URL and any class that says what it is in JSON. What it returns must pass the same rule.
    seen.add(object);
    const converted = toJsonValue(toJSON.call(object, ""), field, seen);
    seen.delete(object);
    return converted;
  }
  if (object instanceof Map || object instanceof Set) {
    const hint = object instanceof Map ? "Object.fromEntries(map)" : "[...set]";
    throw new ItemRefusal(field, `is a ${object.constructor.name}, which has no JSON form; use ${hint}`, "not_json");
  }
  throw new ItemRefusal(
    field,
    `is ${describe(object)}, which has no JSON form; give a plain object, or a toJSON() method`,
    "not_json",
  );
}

/** The item as plain JSON (a new object when anything was converted), or an ItemRefusal saying which field. */
export function normaliseItem(item: Item): Item {
  return toJsonValue(item, "", new Set()) as Item;
}
