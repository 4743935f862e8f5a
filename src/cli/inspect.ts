/**
 * The hidden `netweir _inspect FILE` command: imports one spider file and prints what `netweir list` needs to know
 * about it. `list` runs it in a separate process per file, so a file that throws, hangs or pollutes the module graph
 * cannot take the others down with it.
 */
import type { Command } from "commander";
import { firstLine } from "./errors.ts";
import { loadSpiders, spiderClassName } from "../load/spiders.ts";
import { spiderSettings } from "../spider/spider_settings.ts";
import type { SpiderClass } from "../spider/spider.ts";
import type { CommandContext } from "./context.ts";
import type { InspectedSpider, InspectResult } from "../load/inspect_result.ts";

export type { InspectedSpider, InspectResult };

function describeSpider(spiderClass: SpiderClass): InspectedSpider {
  const spider = new spiderClass();
  return {
    name: spiderClassName(spiderClass),
    className: spiderClass.name,
    settings: spiderSettings(spider).toJSON(),
    profiles: JSON.parse(JSON.stringify(spider.profiles ?? {})),
  };
}

/** Loads `file` and describes its spiders, or says in one line why it could not be loaded. */
export async function inspectFile(file: string): Promise<InspectResult> {
  try {
    const classes = await loadSpiders(file);
    return {
      file,
      spiders: classes.map(describeSpider),
    };
  } catch (error) {
    // loadSpiders prefixes the file's name; list adds it back itself, so report the import error's own message.
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    return { file, error: firstLine(cause) };
  }
}

/** Adds the hidden `_inspect FILE` command: exit 0 with the spiders, 1 with an error (both as JSON on stdout). */
export function addInspectCommand(program: Command, context: CommandContext): void {
  program
    .command("_inspect <file>", { hidden: true })
    .description("print the spiders of one file as JSON (used by list)")
    .action(async (file: string) => {
      const result = await inspectFile(file);
      // A newline first: whatever the spider file printed while loading stays on lines of its own.
      context.out("\n" + JSON.stringify(result) + "\n");
      context.setExitCode("error" in result ? 1 : 0);
    });
}
