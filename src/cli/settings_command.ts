/**
 * `netweir settings [--spider-file F] [--get NAME | --list]`: the settings a crawl would run with and where each value
 * came from, as Scrapy's `scrapy settings`. The work is in settings_run.ts, loaded only when the command runs.
 */
import type { Command } from "commander";
import type { CommandContext } from "./context.ts";
import type { SettingsOptions } from "./settings_run.ts";
import { addSpiderOptions } from "./spider_options.ts";

const HELP_AFTER = `
Each line: NAME  VALUE  (SOURCE), SOURCE being default, profile NAME, spider (its own settings) or -s.
--get NAME prints the value alone (either spelling of NAME). Passwords in URLs are masked.
Exit status: 0, or 2 for an unknown setting, a bad value or a spider file that cannot be loaded.`;

/** Adds `settings`. */
export function addSettingsCommand(program: Command, context: CommandContext): void {
  const command = program
    .command("settings")
    .description("print the settings a crawl would run with, and where each came from")
    .option("--get <name>", "print one setting's value")
    .option("--list", "print every setting (the default)")
    .option("--json", "print JSON");
  addSpiderOptions(command).addHelpText("after", HELP_AFTER).action(async (options: SettingsOptions) => {
    const { runSettings } = await import("./settings_run.ts");
    context.setExitCode(await runSettings(options, context));
  });
}
