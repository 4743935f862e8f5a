/**
 * Contracts (Scrapy's `check`): what a spider says each callback must give for a page it names, checked by
 * `netweir check`. A spider declares them in a static `contracts` table keyed by callback name, as plain data that
 * TypeScript checks where it is written (docs/design/contracts.md says why a table rather than comments or
 * decorators):
 *
 * ```ts ignore
 * static contracts: Contracts = {
 *   parse: { url: "", items: 0, requests: [1, 40] },
 *   parseBook: { url: "catalogue/dune_1/index.html", items: 1, requests: 0, fields: ["title", "price"] },
 * };
 * ```
 *
 * This module checks a table and judges one callback's output against one contract; fetching is the command's.
 */
import { Request } from "./request.ts";
import type { Item } from "./types.ts";

/** A count a contract expects: exactly N, or between N and M (both included; M omitted or null: no upper bound). */
export type ContractCount = number | [number, (number | null)?];

/** What one callback must give for one page. */
export interface Contract {
  /** The page: an absolute URL, or one relative to the spider's first start request ("" is that URL itself). */
  url: string;
  /** How many items the callback must yield. */
  items?: ContractCount;
  /** How many requests the callback must yield. */
  requests?: ContractCount;
  /** Fields every item must have, with a value (not undefined, null or ""). */
  fields?: string[];
  /** The request's meta. */
  meta?: Record<string, unknown>;
  /** The callback's keyword arguments. */
  cbKwargs?: Record<string, unknown>;
  /** Render the page in the browser first. */
  render?: boolean;
}

/** A spider's contracts: for each callback name, one contract or several (one per page). */
export type Contracts = Record<string, Contract | Contract[]>;

/** One contract to run: the callback it is for, and the contract. */
export interface NamedContract {
  callback: string;
  contract: Contract;
}

const FIELDS = ["url", "items", "requests", "fields", "meta", "cbKwargs", "render"];

function checkCount(where: string, name: string, value: unknown): void {
  const ok = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 0;
  if (value === undefined || ok(value)) return;
  if (Array.isArray(value) && value.length >= 1 && value.length <= 2 && ok(value[0])) {
    const max = value[1];
    if (max === undefined || max === null || (ok(max) && max >= value[0])) return;
  }
  throw new TypeError(`${where}: ${name} must be a whole number or [min, max], not ${JSON.stringify(value)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The contracts of a spider's table, in its order, after checking them: a TypeError naming the first mistake (a
 * callback that is not a method, an unknown field, a count that is not one). `isMethod` says whether a name is one
 * of the spider's callbacks.
 */
export function contractList(table: unknown, spider: string, isMethod: (name: string) => boolean): NamedContract[] {
  if (table === undefined) return [];
  if (!isObject(table)) throw new TypeError(`${spider}.contracts must be an object keyed by callback name`);
  const list: NamedContract[] = [];
  for (const [callback, value] of Object.entries(table)) {
    if (!isMethod(callback)) throw new TypeError(`${spider}.contracts: ${callback} is not a method of the spider`);
    const contracts = Array.isArray(value) ? value : [value];
    contracts.forEach((contract, index) => {
      const where = `${spider}.contracts.${callback}${Array.isArray(value) ? `[${index}]` : ""}`;
      if (!isObject(contract)) throw new TypeError(`${where} must be an object with a url`);
      const unknown = Object.keys(contract).find((key) => !FIELDS.includes(key));
      if (unknown) throw new TypeError(`${where}: unknown field ${unknown} (known: ${FIELDS.join(", ")})`);
      if (typeof contract.url !== "string") throw new TypeError(`${where}: url must be a string`);
      checkCount(where, "items", contract.items);
      checkCount(where, "requests", contract.requests);
      if (
        contract.fields !== undefined &&
        !(Array.isArray(contract.fields) && contract.fields.every((f) => typeof f === "string"))
      ) {
        throw new TypeError(`${where}: fields must be an array of field names`);
      }
      for (const name of ["meta", "cbKwargs"]) {
        if (contract[name] !== undefined && !isObject(contract[name])) {
          throw new TypeError(`${where}: ${name} must be an object`);
        }
      }
      list.push({ callback, contract: contract as unknown as Contract });
    });
  }
  return list;
}

/** The range a count stands for. */
function range(count: ContractCount): [number, number] {
  if (typeof count === "number") return [count, count];
  return [count[0], count[1] ?? Infinity];
}

function describe(count: ContractCount): string {
  const [min, max] = range(count);
  if (min === max) return `${min}`;
  return max === Infinity ? `at least ${min}` : `${min} to ${max}`;
}

/** A value that counts as missing for `fields` (and for the coverage monitor, src/engine/item_monitor.ts). */
export function missing(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** What a callback gave for a contract's page. */
export interface CallbackOutput {
  items: Item[];
  requests: Request[];
}

/**
 * Judges a callback's output against its contract: undefined when it holds, else one line saying what broke it,
 * with the first item that broke a `fields` contract.
 */
export function judge(contract: Contract, output: CallbackOutput): string | undefined {
  for (const what of ["items", "requests"] as const) {
    const expected = contract[what];
    if (expected === undefined) continue;
    const [min, max] = range(expected);
    const got = output[what].length;
    if (got < min || got > max) return `expected ${describe(expected)} ${what}, got ${got}`;
  }
  for (const [index, item] of output.items.entries()) {
    const absent = (contract.fields ?? []).filter((field) => missing(item[field]));
    if (absent.length > 0) {
      return `item ${index + 1} has no ${absent.join(", ")}: ${JSON.stringify(item)}`;
    }
  }
  return undefined;
}

/** The request a contract asks for, its URL resolved against `base`. */
export function contractRequest(named: NamedContract, base: string | undefined): Request {
  const { callback, contract } = named;
  let url: string;
  try {
    url = new URL(contract.url, base).href;
  } catch {
    throw new TypeError(
      `contract for ${callback}: ${JSON.stringify(contract.url)} is not a URL` +
        (base === undefined ? " (relative URLs need a start request to resolve against)" : ""),
    );
  }
  return new Request({ url, callback, meta: contract.meta, cbKwargs: contract.cbKwargs, render: contract.render });
}
