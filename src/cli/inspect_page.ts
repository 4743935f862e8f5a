/**
 * `inspectPage(page)`: Scrapy's `inspect_response` for Netweir. Called in a callback, it opens the shell's prompt on
 * that page and returns when the prompt is left, and the callback carries on. Only when the crawl runs in a terminal:
 * otherwise it logs one line and returns at once, so a crawl under cron or a job server never waits for a person.
 * The shell's modules are loaded on the first call.
 */
import { terminalStreams } from "../runtime/terminal.ts";
import type { Page } from "../spider/page.ts";
import type { Spider } from "../spider/spider.ts";

/**
 * Prompts one at a time: the terminal is one for the whole process, and two pages asking at once would share it. A
 * chain per process is the terminal's own state, not a crawl's: two crawls in one process still share one terminal.
 */
let terminalTurn: Promise<void> = Promise.resolve();

/**
 * Opens the shell's prompt on `page` (with `spider` as `spider`, its settings applying to `fetch()`) and resolves when
 * it is left (Ctrl-D or `exit()`). Other pages keep being crawled meanwhile: give the crawl `-s concurrency=1` to
 * see one page at a time. Without a terminal it logs one warning and resolves at once.
 *
 * @example In a callback
 * ```ts ignore
 * import { inspectPage, type Page, Spider } from "netweir";
 *
 * export class Books extends Spider {
 *   override async *parse(page: Page) {
 *     if (page.css("h1").text() === "") await inspectPage(page, this); // why is there no title here?
 *     yield { title: page.css("h1").text() };
 *   }
 * }
 * ```
 */
export async function inspectPage(page: Page, spider?: Spider): Promise<void> {
  const terminal = terminalStreams();
  if (!terminal.interactive) {
    const line = `inspectPage(${page.url}): not run in a terminal, so no prompt; the crawl goes on`;
    if (spider?.log) spider.log.warning(line);
    else terminal.output.write(line + "\n");
    return;
  }
  const turn = terminalTurn.then(async () => {
    const { openPrompt } = await import("./shell_run.ts");
    await openPrompt(page, spider, terminal);
  });
  terminalTurn = turn.catch(() => {});
  await turn;
}
