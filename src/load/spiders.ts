/**
 * Loading a spider file (C1): import it, find the Spider subclasses it exports, and pick the one a command asked
 * for. Every way this goes wrong is the user's mistake, so each is a UsageError with one plain line.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { firstLine, UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import { isForeignSpiderClass, isSpiderClass, type Spider, type SpiderClass } from "../spider/spider.ts";
import { syntaxErrorPlace } from "./syntax_location.ts";

/** The files Netweir runs as spiders: TypeScript and JavaScript modules. */
const SPIDER_FILE = /\.(ts|mts|js|mjs|cjs)$/;

/**
 * Why `file` is no spider file, by its extension. A Scrapy spider (.py) used to be imported as JavaScript and fail
 * with a syntax error about its first line.
 */
function notASpiderFile(file: string): string {
  const what = file.endsWith(".py") ? "a Python file" : "not a TypeScript or JavaScript file";
  return `${file} is ${what}; Netweir runs only .ts and .js spiders (.mts and .mjs too)`;
}

/**
 * Imports a spider file (relative to the working directory) and returns the Spider subclasses it exports, each
 * once. The order is that of the module's exports, which ECMAScript sorts by export name.
 *
 * @throws UsageError when the file does not exist, is not .ts, .js, .mts, .mjs or .cjs, or throws while it is imported
 * (with its error's first line, after the place of a syntax error).
 */
export async function loadSpiders(file: string): Promise<SpiderClass[]> {
  const path = resolve(runtime.cwd(), file);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`no such file: ${file}`);
  if (!info.isFile()) throw new UsageError(`not a file: ${file}`);
  if (!SPIDER_FILE.test(path)) throw new UsageError(notASpiderFile(file));
  const problem = runtime.moduleLoadProblem(path, file);
  if (problem) throw new UsageError(problem);
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(path).href);
  } catch (error) {
    // The message, not the trace: a syntax error or a throw at the top of a spider file is for its author to fix,
    // and the first line says what; a syntax error's place is put before it, as file:line:column.
    const place = syntaxErrorPlace(error, runtime.cwd()) ??
      (error instanceof SyntaxError ? syntaxErrorPlace(runtime.moduleSyntaxError(path), runtime.cwd()) : undefined);
    if (!place) throw new UsageError(`${file}: ${firstLine(error)}`, { cause: error });
    // Deno's message starts with the error's name, Node's does not: both read "SyntaxError: ...".
    const what = firstLine(error).replace(/^(?!SyntaxError\b)/, "SyntaxError: ");
    throw new UsageError(`${place.file}:${place.line}:${place.column}: ${what}`, { cause: error });
  }
  const classes: SpiderClass[] = [];
  for (const value of Object.values(module)) {
    if (isSpiderClass(value) && !classes.includes(value)) classes.push(value);
    else if (isForeignSpiderClass(value) && (value as SpiderClass).name !== "Spider") {
      throw new UsageError(
        `${file}: ${(value as SpiderClass).name} extends the Spider of another copy of netweir; ` +
          "run the netweir that the spider's own project installs",
      );
    }
  }
  return classes;
}

/**
 * A spider of the class, as the crawl runs it. Its constructor is the spider author's code run before anything is
 * fetched, so a throw there is a problem found before fetching (exit 2, as the table in docs/cli.md says), told in
 * one line naming the spider.
 *
 * @throws UsageError with the constructor's error's first line.
 */
export function createSpider(spiderClass: SpiderClass): Spider {
  try {
    return new spiderClass();
  } catch (error) {
    const what = error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
    throw new UsageError(`spider ${spiderClass.name} could not be created: ${what}${firstLine(error)}`, {
      cause: error,
    });
  }
}

/** A spider class's name as commands use it: its instances' `name`, else the class name. */
export function spiderClassName(spiderClass: SpiderClass): string {
  try {
    return new spiderClass().name ?? spiderClass.name;
  } catch {
    // A constructor that throws will fail the crawl with its own message; for naming, the class name will do.
    return spiderClass.name;
  }
}

/**
 * The spider a command runs: the file's only one, or the one called `name`.
 *
 * @throws UsageError when the file has none, when it has several and no name was given, or when none has the name.
 */
export function pickSpider(classes: SpiderClass[], name: string | undefined, file: string): SpiderClass {
  if (classes.length === 0) throw new UsageError(`${file} exports no Spider subclass`);
  const names = classes.map(spiderClassName);
  if (name === undefined) {
    if (classes.length === 1) return classes[0];
    throw new UsageError(`${file} has several spiders (${names.join(", ")}); choose one with --spider`);
  }
  const index = names.indexOf(name);
  if (index === -1) throw new UsageError(`no spider named ${name} in ${file} (found: ${names.join(", ")})`);
  return classes[index];
}
