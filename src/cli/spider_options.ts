/**
 * The options the commands of the spider developer's loop share (`fetch`, `parse`, `shell`, `check`, `settings`):
 * which spider's settings and middlewares apply (`--spider-file`, `--spider`, `-a`), settings over them (`-s`,
 * `--log-level`), and the probe (src/cli/probe.ts) they open from them. Modules are loaded only when a command runs.
 */
import type { Command } from "commander";
import { keyValue } from "./crawl_command.ts";
import { UsageError } from "../errors.ts";
import type { Probe } from "./probe.ts";
import type { Spider } from "../spider/spider.ts";

/** What commander parses the shared options into. */
export interface SpiderOptionValues {
  spiderFile?: string;
  spider?: string;
  set?: string[];
  arg?: string[];
  logLevel?: string;
}

/** Adds the shared options to `command`; `withFile: false` for a command whose spider file is its argument. */
export function addSpiderOptions(command: Command, options: { withFile?: boolean } = {}): Command {
  if (options.withFile !== false) {
    command.option("--spider-file <file>", "use this spider's settings, middlewares and callbacks");
  }
  return command
    .option("--spider <name>", "the spider to use when the file has several")
    .option("-s, --set <KEY=VALUE>", "a setting, e.g. -s user_agent=bot (repeatable)", keyValue("KEY"))
    .option("-a, --arg <NAME=VALUE>", "a spider argument, set as a string attribute (repeatable)", keyValue("NAME"))
    .option("--log-level <level>", "least important log lines shown: debug, info, warning, error (the default)");
}

/** The `-s` settings with `--log-level` last, as "KEY=VALUE". */
export function settingPairs(values: SpiderOptionValues): string[] {
  const pairs = [...values.set ?? []];
  if (values.logLevel !== undefined) pairs.push(`log_level=${values.logLevel}`);
  return pairs;
}

/** The spider of `file` (or of `values.spiderFile`) with its `-a` arguments set, or undefined without a file. */
export async function loadSpider(values: SpiderOptionValues, file = values.spiderFile): Promise<Spider | undefined> {
  if (file === undefined) {
    if (values.spider !== undefined || (values.arg ?? []).length > 0) {
      throw new UsageError("--spider and -a need a spider file (--spider-file FILE)");
    }
    return undefined;
  }
  const [{ loadSpiders, pickSpider }, { applySpiderArgs }] = await Promise.all([
    import("../load/spiders.ts"),
    import("../spider/spider_args.ts"),
  ]);
  const spiderClass = pickSpider(await loadSpiders(file), values.spider, file);
  const spider = new spiderClass();
  applySpiderArgs(spider, values.arg ?? []);
  return spider;
}

/**
 * The options with the current project's spider for `url` as `--spider-file` and `--spider`, when none is given and
 * the project has one for it (src/cli/project_spider.ts); else the options as they are.
 */
export async function withProjectSpider(values: SpiderOptionValues, url: string | undefined) {
  if (values.spiderFile !== undefined || url === undefined) return values;
  const [{ projectSpiderFor }, { spiderClassName }] = await Promise.all([
    import("./project_spider.ts"),
    import("../load/spiders.ts"),
  ]);
  const found = await projectSpiderFor(url);
  if (found === undefined) return values;
  return { ...values, spiderFile: found.file, spider: spiderClassName(found.spiderClass) };
}

/**
 * A probe for the spider the options name, or the project's spider for `url` (a plain spider without either), with
 * their settings over its own.
 */
export async function openProbe(
  given: SpiderOptionValues,
  url?: string,
  extra: readonly string[] = [],
): Promise<Probe> {
  const values = await withProjectSpider(given, url);
  const spider = await loadSpider(values);
  const [{ Probe }, { Settings }] = await Promise.all([import("./probe.ts"), import("../settings/settings.ts")]);
  return Probe.open({ spider, overrides: Settings.fromPairs([...extra, ...settingPairs(values)]) });
}
