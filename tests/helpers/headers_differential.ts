/**
 * Runs generated operations on two header sets, the runtime's own `Headers` and src/runtime/header_list.ts's, and
 * counts where they answer differently: each call's result or the name of what it threw, and everything each one
 * lists afterwards. Shared by tests/runtime/header_list_test.ts in Deno and the copy of it run in Node 22.
 */
import { HeaderList } from "../../src/runtime/header_list.ts";
import { seededRandom } from "./seeded_random.ts";

const NAMES = [
  "Content-Type",
  "content-type",
  "Set-Cookie",
  "SET-COOKIE",
  "Accept",
  "x-a",
  "X-A",
  "x-b",
  "x_weird~!#$%&'*+.^`|",
  "bad name",
  "",
  "naïve",
  "x:y",
  "x\ny",
  "\u2603",
];
const VALUES = [
  "text/html",
  "  padded\t",
  "a, b",
  "",
  " ",
  "\t\r\n",
  "with\nnewline",
  "nul\0in",
  "trailing\r",
  "é",
  "€",
  "id=1; Path=/",
  "id=2; Path=/; HttpOnly",
  "inner  spaces stay",
];

type Outcome = string;

function outcome(run: () => unknown): Outcome {
  try {
    const value = run();
    return "ok " + JSON.stringify(value === undefined ? null : value);
  } catch (error) {
    return "throws " + (error as Error).name;
  }
}

function listing(headers: Headers): string {
  const forEach: string[][] = [];
  headers.forEach((value, name, parent) => forEach.push([name, value, String(parent === headers)]));
  return JSON.stringify({
    entries: [...headers],
    keys: [...headers.keys()],
    values: [...headers.values()],
    forEach,
    setCookie: headers.getSetCookie(),
  });
}

/** Header init for both constructors: a record, pairs, or nothing. */
function init(next: () => number, values: string[]): HeadersInit | undefined {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const kind = Math.floor(next() * 3);
  if (kind === 0) return undefined;
  const pairs: [string, string][] = [];
  const count = Math.floor(next() * 4);
  for (let i = 0; i < count; i++) pairs.push([pick(NAMES), pick(values)]);
  return kind === 1 ? pairs : Object.fromEntries(pairs);
}

/** Values that are empty once trimmed. */
const EMPTY_VALUES = VALUES.filter((value) => value.trim() === "");

/**
 * The differing answers over `runs` runs of `steps` operations each, from `seed`. `withEmptyValues: false` leaves
 * out values that trim to nothing, for Deno: its `Headers` lists "a" for an empty value followed by "a" where the
 * standard (and Node, and `get` on Deno itself) says ", a".
 */
export function headerDifferences(
  seed: number,
  runs: number,
  steps: number,
  { withEmptyValues = true } = {},
): { compared: number; differ: string[] } {
  const values = withEmptyValues ? VALUES : VALUES.filter((value) => !EMPTY_VALUES.includes(value));
  const next = seededRandom(seed);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const differ: string[] = [];
  let compared = 0;
  for (let run = 0; run < runs; run++) {
    const start = init(next, values);
    const theirs = outcome(() => new Headers(start));
    const ours = outcome(() => new HeaderList(start));
    compared++;
    if (theirs !== ours) differ.push(`new ${JSON.stringify(start)}: ${theirs} / ${ours}`);
    if (!theirs.startsWith("ok")) continue;
    let native = new Headers(start);
    let list: Headers = new HeaderList(start);
    for (let step = 0; step < steps; step++) {
      const name = pick(NAMES);
      const value = pick(values);
      const op = Math.floor(next() * 8);
      const apply = (headers: Headers): Outcome => {
        switch (op) {
          case 0:
            return outcome(() => headers.append(name, value));
          case 1:
            return outcome(() => headers.set(name, value));
          case 2:
            return outcome(() => headers.delete(name));
          case 3:
            return outcome(() => headers.get(name));
          case 4:
            return outcome(() => headers.has(name));
          case 5:
            return outcome(() => headers.getSetCookie());
          case 6:
            return outcome(() => headers.append(name, value));
          default:
            return outcome(() => listing(headers));
        }
      };
      const a = apply(native);
      const b = apply(list);
      compared++;
      if (a !== b) differ.push(`op ${op} ${JSON.stringify(name)} ${JSON.stringify(value)}: ${a} / ${b}`);
      if (next() < 0.05) {
        // A copy made from each: of the runtime's own class by its own constructor, of ours by ours.
        native = new Headers(native);
        list = new HeaderList(list);
      }
    }
    compared++;
    const a = listing(native);
    const b = listing(list);
    if (a !== b) differ.push(`at the end: ${a} / ${b}`);
  }
  return { compared, differ: differ.slice(0, 5) };
}
