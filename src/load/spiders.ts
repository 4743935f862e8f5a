/**
 * Loading a spider file (C1): import it, find the Spider subclasses it exports, and pick the one a command asked
 * for. Every way this goes wrong is the user's mistake, so each is a UsageError with one plain line.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { firstLine, UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";
import { isForeignSpiderClass, isSpiderClass, type SpiderClass } from "../spider/spider.ts";

/**
 * Imports a spider file (relative to the working directory) and returns the Spider subclasses it exports, each
 * once. The order is that of the module's exports, which ECMAScript sorts by export name.
 *
 * @throws UsageError when the file does not exist or throws while it is imported (with its error's first line).
 */
export async function loadSpiders(file: string): Promise<SpiderClass[]> {
  const path = resolve(runtime.cwd(), file);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`no such file: ${file}`);
  if (!info.isFile()) throw new UsageError(`not a file: ${file}`);
  const problem = runtime.moduleLoadProblem(path, file);
  if (problem) throw new UsageError(problem);
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(path).href);
  } catch (error) {
    // The message, not the trace: a syntax error or a throw at the top of a spider file is for its author to fix,
    // and the first line says what and where.
    throw new UsageError(`${file}: ${firstLine(error)}`, { cause: error });
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
