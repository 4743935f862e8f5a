/**
 * What `netweir shell [URL | FILE]` does once its command line is parsed (src/cli/shell.ts): a prompt whose `page`
 * is the page a callback would get (fetched through a probe, src/cli/probe.ts, so the spider's settings, middlewares,
 * cookies, proxies and robots.txt apply), with `fetch()` to load another, `view()` to look at what was received,
 * and `spider` and `settings`. Loaded only when the command runs.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "../errors.ts";
import { type TerminalStreams, terminalStreams } from "../runtime/terminal.ts";
import { Page } from "../spider/page.ts";
import { Request, type RequestInit } from "../spider/request.ts";
import { makeResponse } from "../spider/response.ts";
import type { CommandContext } from "./context.ts";
import { notFetched, requestFor } from "./fetch_run.ts";
import { Probe } from "./probe.ts";
import type { Spider } from "../spider/spider.ts";
import { ShellScope } from "./shell_eval.ts";
import { runPrompt } from "./shell_prompt.ts";
import { showValue } from "./shell_print.ts";
import { openProbe, type SpiderOptionValues } from "./spider_options.ts";
import { viewPage } from "./shell_view.ts";

export interface ShellOptions extends SpiderOptionValues {
  /** `-c CODE`: run this line, print its value and leave. */
  command?: string;
  render?: boolean;
}

/** What `fetch()` takes in the shell: a URL, a Request, or a Request's options with its URL. */
type FetchTarget = string | Request | RequestInit;

/** A page from a local HTML file (Page.fromHtml is the public face of this; the shell builds it the same way). */
async function localPage(path: string): Promise<Page> {
  const body = new Uint8Array(await readFile(path));
  const request = new Request({ url: pathToFileURL(resolve(path)).href });
  return new Page(makeResponse(request, { body, headers: { "content-type": "text/html" } }));
}

/** Whether the shell's argument is a URL (it has a scheme) rather than a file. */
function isUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
}

function banner(scope: ShellScope, hasSpider: boolean): string {
  const page = scope.get("page");
  const lines = [
    "Netweir shell. Names:",
    `  page       ${page === undefined ? "(none yet: fetch(url) loads one)" : showValue(page)}`,
    `  request    ${page === undefined ? "(none yet)" : showValue((page as Page).request)}`,
  ];
  if (hasSpider) {
    lines.push(
      `  spider     the spider (${(scope.get("spider") as { constructor: { name: string } }).constructor.name})`,
    );
  }
  lines.push(
    "  settings   the settings a crawl would run with",
    "  fetch(url | request | options)  fetch a page as the crawl would; it becomes page",
    "  view(page)                      write what was received to a file and print its path",
    "  help()  this text;  exit() or Ctrl-D  leave",
    "",
  );
  return lines.join("\n");
}

/** The shell's fetch(): a page (now `page`), or an Error saying in one line why there is none. */
function shellFetch(probe: Probe, scope: ShellScope, render: boolean | undefined) {
  return async (target: FetchTarget, options: Partial<RequestInit> = {}): Promise<Page> => {
    const request = target instanceof Request
      ? target
      : typeof target === "string"
      ? requestFor(target, { render }).replace(options)
      : new Request(target);
    const outcome = await probe.fetch(request, { allStatuses: true });
    if (outcome.kind !== "page") throw notFetched(outcome);
    setPage(scope, outcome.page);
    return outcome.page;
  };
}

/** The shell's names over `probe`: settings, spider (when given), fetch, view, help. */
function shellScope(probe: Probe, hasSpider: boolean, render: boolean | undefined, terminal: TerminalStreams) {
  const scope = new ShellScope({ settings: probe.settings });
  if (hasSpider) scope.set("spider", probe.spider);
  scope.set("fetch", shellFetch(probe, scope, render));
  scope.set("view", (page: unknown = scope.get("page")) => viewPage(page, terminal.interactive));
  scope.set("help", () => void terminal.output.write(banner(scope, hasSpider)));
  return scope;
}

function setPage(scope: ShellScope, page: Page): void {
  scope.set("page", page);
  scope.set("request", page.request);
}

/** The prompt on a page a callback got (inspectPage): fetch() fetches with the spider's settings and middlewares. */
export async function openPrompt(page: Page, spider: Spider | undefined, terminal: TerminalStreams): Promise<void> {
  const probe = Probe.open({ spider });
  try {
    const scope = shellScope(probe, spider !== undefined, undefined, terminal);
    setPage(scope, page);
    terminal.output.write(`\n${banner(scope, spider !== undefined)}(The crawl carries on when you leave.)\n`);
    await runPrompt(scope, terminal, (text) => terminal.output.write(text));
  } finally {
    await probe.close();
  }
}

/** Runs the shell; resolves with its exit status. */
export async function runShell(target: string | undefined, options: ShellOptions, context: CommandContext) {
  const probe = await openProbe(options, target !== undefined && isUrl(target) ? target : undefined);
  try {
    const terminal = terminalStreams();
    const hasSpider = probe.spiderGiven;
    const scope = shellScope(probe, hasSpider, options.render, terminal);
    if (target !== undefined) {
      if (isUrl(target)) await (scope.get("fetch") as (url: string) => Promise<Page>)(target);
      else {
        const page = await localPage(target).catch(() => {
          throw new UsageError(`no such file: ${target} (a URL needs its scheme, as http://)`);
        });
        setPage(scope, page);
      }
    }
    if (options.command !== undefined) {
      const value = await scope.run(options.command);
      if (value !== undefined) context.out(showValue(value) + "\n");
      return 0;
    }
    terminal.output.write(banner(scope, hasSpider));
    await runPrompt(scope, terminal, (text) => terminal.output.write(text));
    return 0;
  } finally {
    await probe.close();
  }
}
