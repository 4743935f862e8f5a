/**
 * `netweir shell [URL | FILE]`: an interactive prompt on a page, as Scrapy's `scrapy shell`, for writing selectors
 * and callbacks against the page a callback would get. The work is in shell_run.ts, loaded only when it runs.
 */
import type { Command } from "commander";
import type { CommandContext } from "./context.ts";
import { addSpiderOptions } from "./spider_options.ts";
import type { ShellOptions } from "./shell_run.ts";

const HELP_AFTER = `
URL is fetched as the crawl would fetch it (with --spider-file, the spider's settings and middlewares); FILE is a
local HTML file. In the prompt: page, request, spider, settings, fetch(url), view(page), help(), exit().
Exit status: 0 when the shell is left, 1 when URL cannot be fetched or -c's code throws, 2 for bad arguments.`;

/** Adds `shell [target]`. */
export function addShellCommand(program: Command, context: CommandContext): void {
  const command = program
    .command("shell [target]")
    .description("an interactive prompt on a page (a URL or a local HTML file)")
    .option("-c, --command <code>", "run this JavaScript, print its value and leave")
    .option("--render", "render fetched pages in the browser (Chromium)");
  addSpiderOptions(command).addHelpText("after", HELP_AFTER).action(
    async (target: string | undefined, options: ShellOptions) => {
      const { runShell } = await import("./shell_run.ts");
      context.setExitCode(await runShell(target, options, context));
    },
  );
}
