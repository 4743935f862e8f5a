/**
 * `netweir fetch URL`: one page fetched as the crawl would fetch it (the spider's settings and middlewares with
 * `--spider-file`, robots.txt, cookies, proxies; `--render` in the browser), its body on standard output. Scrapy's
 * `scrapy fetch`. A fetch that fails, or that the crawl's rules refuse, is exit 1 with one line.
 */
import type { Command } from "commander";
import { asUsage, CommandError } from "./errors.ts";
import type { CommandContext } from "./context.ts";
import { addSpiderOptions, openProbe, type SpiderOptionValues } from "./spider_options.ts";
import { Request } from "../spider/request.ts";
import type { ProbeOutcome } from "./probe.ts";

interface FetchOptions extends SpiderOptionValues {
  headers?: boolean;
  redirect?: boolean;
  render?: boolean;
}

const HELP_AFTER = `
Every status is printed (a 404's body too); the status is on standard error at --log-level debug.
Exit status: 0 when a response came, 1 when the fetch failed or was refused (robots.txt, a middleware, offsite),
2 for bad arguments or settings.`;

/** A request for `url` as a command line gives it: an absolute http(s) URL, or a UsageError (exit 2). */
export function requestFor(url: string, options: { render?: boolean; redirect?: boolean } = {}): Request {
  const request = asUsage(() => new Request({ url, render: options.render, allowRedirects: options.redirect }));
  if (!/^https?:$/.test(new URL(request.url).protocol)) {
    throw new CommandError(`cannot fetch ${url}: only http:// and https:// URLs are fetched`);
  }
  return request;
}

/** The line for an outcome that is not a page: why there is nothing to show. */
export function notFetched(outcome: Exclude<ProbeOutcome, { kind: "page" }>): CommandError {
  const url = outcome.request.url;
  if (outcome.kind === "failed") return new CommandError(outcome.error.message);
  return new CommandError(`${url} was not fetched: ${outcome.reason}`);
}

/** Headers as `PREFIX name: value` lines, one a line. */
function headerLines(prefix: string, headers: Iterable<[string, string]>): string {
  let text = "";
  for (const [name, value] of headers) text += `${prefix} ${name}: ${value}\n`;
  return text;
}

async function runFetch(url: string, options: FetchOptions, context: CommandContext): Promise<void> {
  const request = requestFor(url, { render: options.render, redirect: options.redirect });
  const probe = await openProbe(options);
  let outcome: ProbeOutcome;
  try {
    outcome = await probe.fetch(request, { allStatuses: true });
  } finally {
    await probe.close();
  }
  if (outcome.kind !== "page") throw notFetched(outcome);
  const page = outcome.page;
  if (options.headers) {
    const sent = page.response.sent;
    if (sent) context.out(`> ${sent.method} ${page.url}\n` + headerLines(">", sent.headers.entries()) + ">\n");
    context.out(`< ${page.status}\n` + headerLines("<", page.headers.entries()));
    return;
  }
  context.out(page.text);
}

/** Adds `fetch URL`. */
export function addFetchCommand(program: Command, context: CommandContext): void {
  const command = program
    .command("fetch <url>")
    .description("fetch a page as the crawl would and print its body")
    .option("--headers", "print the request's and the response's headers instead of the body")
    .option("--no-redirect", "do not follow redirects (the 3xx itself is printed)")
    .option("--render", "render the page in the browser (Chromium) and print the DOM");
  addSpiderOptions(command).addHelpText("after", HELP_AFTER).action(async (url: string, options: FetchOptions) => {
    await runFetch(url, options, context);
  });
}
