/**
 * `netweir fetch URL`: one page fetched as the crawl would fetch it (the spider's settings and middlewares with
 * `--spider-file`, robots.txt, cookies, proxies; `--render` in the browser), its body on standard output. Scrapy's
 * `scrapy fetch`. A fetch that fails, or that the crawl's rules refuse, is exit 1 with one line. The work is in
 * fetch_run.ts, loaded only when the command runs.
 */
import type { Command } from "commander";
import type { CommandContext } from "./context.ts";
import { addSpiderOptions } from "./spider_options.ts";
import type { FetchOptions } from "./fetch_run.ts";

const HELP_AFTER = `
Every status is printed (a 404's body too); the status is on standard error at --log-level debug.
Exit status: 0 when a response came, 1 when the fetch failed or was refused (robots.txt, a middleware, offsite),
2 for bad arguments or settings.`;

/** Adds `fetch URL`. */
export function addFetchCommand(program: Command, context: CommandContext): void {
  const command = program
    .command("fetch <url>")
    .description("fetch a page as the crawl would and print its body")
    .option("--headers", "print the request's and the response's headers instead of the body")
    .option("--no-redirect", "do not follow redirects (the 3xx itself is printed)")
    .option("--render", "render the page in the browser (Chromium) and print the DOM");
  addSpiderOptions(command).addHelpText("after", HELP_AFTER).action(async (url: string, options: FetchOptions) => {
    const { runFetch } = await import("./fetch_run.ts");
    await runFetch(url, options, context);
  });
}
