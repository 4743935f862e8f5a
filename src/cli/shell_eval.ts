/**
 * What `netweir shell` runs each line with: JavaScript evaluated against a scope of the shell's names (`page`,
 * `fetch`, `view`, `spider`...) and the variables the user declares, which last from one line to the next. A line
 * may use `await`; a promise it ends with is awaited, so `fetch(url)` reads as it does in Scrapy's shell.
 *
 * How: each line becomes the body of an async function run inside `with (scope)`, where the scope is a proxy that
 * claims every name that is not a global, so an assignment to a new name lands in the scope. `const x = ...`,
 * `let` and `var` at the start of a line become plain assignments, so they last too.
 */

type Compiled = (scope: object) => Promise<unknown>;
const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => Compiled;
/** A simple declaration at the start of a line: `const name =`. */
const DECLARATION = /^\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=(?!=)/;

/** The code of one line as a function: as an expression when it is one (its value is the answer), else statements. */
function compile(code: string): Compiled {
  const body = code.replace(DECLARATION, "$1 =");
  try {
    return new AsyncFunction("__scope", `with (__scope) { return (${body}\n); }`);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return new AsyncFunction("__scope", `with (__scope) { ${body}\n }`);
}

/** The variables of one shell session. */
export class ShellScope {
  readonly #names = new Map<string, unknown>();
  readonly #proxy: object;

  constructor(names: Record<string, unknown> = {}) {
    for (const [name, value] of Object.entries(names)) this.#names.set(name, value);
    const names_ = this.#names;
    this.#proxy = new Proxy(Object.create(null), {
      // The shell's names, and any name that is no global: assignments to new names land here.
      has: (_, key) => typeof key === "string" && key !== "__scope" && (names_.has(key) || !(key in globalThis)),
      get: (_, key) => {
        if (key === Symbol.unscopables) return undefined;
        if (names_.has(key as string)) return names_.get(key as string);
        if (typeof key === "string" && !(key in globalThis)) throw new ReferenceError(`${key} is not defined`);
        return (globalThis as Record<string | symbol, unknown>)[key];
      },
      set: (_, key, value) => {
        names_.set(key as string, value);
        return true;
      },
    });
  }

  /** Sets a name (`page` after a fetch). */
  set(name: string, value: unknown): void {
    this.#names.set(name, value);
  }

  /** A name's value. */
  get(name: string): unknown {
    return this.#names.get(name);
  }

  /** Runs one line; resolves with its value (a promise it ends with, awaited). A SyntaxError is thrown as is. */
  async run(code: string): Promise<unknown> {
    const value = await compile(code)(this.#proxy);
    return value;
  }
}
