/**
 * HTTP headers with the Fetch standard's `Headers` behaviour, in plain JavaScript: what the crawl's requests and
 * responses carry. Every request builds three header sets (the request's own, the ones sent, the ones received),
 * and the runtimes' `Headers` pay for being web platform classes: on Node it is undici's, whose first use loads
 * undici itself (about 35 ms and 13 MB of a crawl's start), and on both runtimes every call goes through WebIDL
 * argument conversion (docs/design/engine.md, "A start without undici and amaro"). This class keeps the pairs in one
 * flat array, which for the ten or so headers of a response is faster to scan than any index is to keep.
 *
 * Observably it is the standard's class: names compared without case and shown lower-cased, values trimmed of HTTP
 * whitespace, a TypeError for a name that is not a token or a value with NUL, CR, LF or a character past U+00FF,
 * `get` joining repeated headers with ", ", `getSetCookie` keeping Set-Cookie apart, iteration sorted by name with each
 * Set-Cookie on its own. tests/runtime/header_list_test.ts holds it to the runtime's own `Headers`. What it is not is
 * an instance of the global class (`instanceof Headers` is false); it is accepted anywhere `HeadersInit` is.
 */

/** A header name the standard accepts: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a value may not hold once trimmed: NUL, CR, LF, or a character no byte string can (past U+00FF). */
const FORBIDDEN_IN_VALUE = /[\0\r\n]|[^\0-\xff]/;
/** HTTP whitespace a value is trimmed of at either end. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Invalid header name: ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

function isEdgeWhitespace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function checkedValue(value: string): string {
  let text = String(value);
  if (text.length > 0 && (isEdgeWhitespace(text.charCodeAt(0)) || isEdgeWhitespace(text.charCodeAt(text.length - 1)))) {
    text = text.replace(EDGE_WHITESPACE, "");
  }
  if (FORBIDDEN_IN_VALUE.test(text)) throw new TypeError(`Invalid header value: ${JSON.stringify(text)}`);
  return text;
}

type Init = HeadersInit | HeaderList | undefined | null;
/** The iterators the runtime's lib types give Headers (their names differ between Deno's types and the DOM's). */
type PairIterator = ReturnType<Headers["entries"]>;
type TextIterator = ReturnType<Headers["keys"]>;

export class HeaderList implements Headers {
  /** Name, value, name, value…: names lower-cased, in the order they were added. */
  #pairs: string[] = [];

  constructor(init?: Init) {
    if (init === undefined || init === null) return;
    if (init instanceof HeaderList) {
      // As the runtimes copy: from the listing, so repeated headers arrive joined (and trimmed again) as one.
      for (const [name, value] of init.#sorted()) this.#pairs.push(name, checkedValue(value));
    } else if (typeof (init as Iterable<unknown>)[Symbol.iterator] === "function") {
      for (const pair of init as Iterable<string[]>) {
        if (pair.length !== 2) throw new TypeError("A header init pair must have exactly two items");
        this.append(pair[0], pair[1]);
      }
    } else if (typeof init === "object") {
      for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name]);
    } else {
      throw new TypeError("Headers must be given as pairs or as an object of names and values");
    }
  }

  append(name: string, value: string): void {
    this.#pairs.push(checkedName(name), checkedValue(value));
  }

  delete(name: string): void {
    const key = checkedName(name);
    const pairs = this.#pairs;
    let kept = 0;
    for (let at = 0; at < pairs.length; at += 2) {
      if (pairs[at] === key) continue;
      pairs[kept] = pairs[at];
      pairs[kept + 1] = pairs[at + 1];
      kept += 2;
    }
    pairs.length = kept;
  }

  get(name: string): string | null {
    const key = checkedName(name);
    const pairs = this.#pairs;
    let found: string | null = null;
    for (let at = 0; at < pairs.length; at += 2) {
      if (pairs[at] === key) found = found === null ? pairs[at + 1] : `${found}, ${pairs[at + 1]}`;
    }
    return found;
  }

  getSetCookie(): string[] {
    const pairs = this.#pairs;
    const cookies: string[] = [];
    for (let at = 0; at < pairs.length; at += 2) if (pairs[at] === "set-cookie") cookies.push(pairs[at + 1]);
    return cookies;
  }

  has(name: string): boolean {
    const key = checkedName(name);
    const pairs = this.#pairs;
    for (let at = 0; at < pairs.length; at += 2) if (pairs[at] === key) return true;
    return false;
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    const checked = checkedValue(value);
    const pairs = this.#pairs;
    let at = 0;
    while (at < pairs.length && pairs[at] !== key) at += 2;
    if (at === pairs.length) {
      pairs.push(key, checked);
      return;
    }
    // The first keeps its place with the new value; any later ones go.
    pairs[at + 1] = checked;
    let kept = at + 2;
    for (let next = at + 2; next < pairs.length; next += 2) {
      if (pairs[next] === key) continue;
      pairs[kept] = pairs[next];
      pairs[kept + 1] = pairs[next + 1];
      kept += 2;
    }
    pairs.length = kept;
  }

  // deno-lint-ignore no-explicit-any
  forEach(callback: (value: string, key: string, parent: this) => void, thisArg?: any): void {
    for (const [name, value] of this.#sorted()) callback.call(thisArg, value, name, this);
  }

  entries(): PairIterator {
    return this.#sorted()[Symbol.iterator]() as unknown as PairIterator;
  }

  keys(): TextIterator {
    return this.#sorted().map(([name]) => name)[Symbol.iterator]() as unknown as TextIterator;
  }

  values(): TextIterator {
    return this.#sorted().map(([, value]) => value)[Symbol.iterator]() as unknown as TextIterator;
  }

  [Symbol.iterator](): PairIterator {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  /** How console.log shows it, as the runtimes show their own Headers (Deno honours Node's symbol too). */
  [Symbol.for("nodejs.util.inspect.custom")](
    _depth: number,
    options: unknown,
    inspect: (value: unknown, options: unknown) => string,
  ): string {
    return `Headers ${inspect(Object.fromEntries(this.#sorted()), options)}`;
  }

  /**
   * The standard's "sort and combine": by name, each name once with its values joined by ", ", except Set-Cookie,
   * whose values stay one entry each, in the order they came.
   */
  #sorted(): Array<[string, string]> {
    // One pass over the pairs, which are checked already: forEach runs for every request's head.
    const pairs = this.#pairs;
    const byName = new Map<string, string[]>();
    for (let at = 0; at < pairs.length; at += 2) {
      const values = byName.get(pairs[at]);
      if (values) values.push(pairs[at + 1]);
      else byName.set(pairs[at], [pairs[at + 1]]);
    }
    const names = [...byName.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const sorted: Array<[string, string]> = [];
    for (const name of names) {
      const values = byName.get(name)!;
      if (name === "set-cookie") { for (const cookie of values) sorted.push([name, cookie]); }
      else sorted.push([name, values.join(", ")]);
    }
    return sorted;
  }
}
