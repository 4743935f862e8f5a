/** What `netweir fetch URL` does once its command line is parsed (src/cli/fetch.ts): loaded only when it runs. */
import { UsageError } from "../errors.ts";
import { asUsage, CommandError } from "./errors.ts";
import type { CommandContext } from "./context.ts";
import { openProbe, type SpiderOptionValues } from "./spider_options.ts";
import { Request } from "../spider/request.ts";
import type { ProbeOutcome } from "./probe.ts";

export interface FetchOptions extends SpiderOptionValues {
  headers?: boolean;
  redirect?: boolean;
  render?: boolean;
}

/** A request for `url` as a command line gives it: an absolute http(s) URL, or a UsageError (exit 2). */
export function requestFor(url: string, options: { render?: boolean; redirect?: boolean } = {}): Request {
  const request = asUsage(() => new Request({ url, render: options.render, allowRedirects: options.redirect }));
  if (!/^https?:$/.test(new URL(request.url).protocol)) {
    throw new UsageError(`cannot fetch ${url}: only http:// and https:// URLs are fetched`);
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

export async function runFetch(url: string, options: FetchOptions, context: CommandContext): Promise<void> {
  const request = requestFor(url, { render: options.render, redirect: options.redirect });
  const probe = await openProbe(options, request.url);
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
