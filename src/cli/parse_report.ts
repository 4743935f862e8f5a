/**
 * What `netweir parse` prints: level by level, each page with its status and callback, the items it gave and the
 * requests it yielded; as a readable report (items as JSON, one a line) or as JSON Lines for tools.
 */
import { callbackName } from "../spider/callbacks.ts";
import type { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Item } from "../spider/types.ts";

/** One page of a level, and what its callback made of it. */
export interface ParsedPage {
  url: string;
  status?: number;
  callback?: string;
  items: Item[];
  requests: Request[];
  /** Why the page was not fetched, or how its callback failed. */
  error?: string;
  /** Where its request came among those yielded (the report lists a level's pages in that order). */
  order?: number;
}

/** One level: 1 is the URL given, 2 the requests its callback yielded, and so on. */
export interface ParseLevel {
  level: number;
  pages: ParsedPage[];
}

/** A request as a plain object: method, URL, the callback it goes to, and its meta and cbKwargs when it has some. */
function describeRequest(spider: Spider, request: Request): Record<string, unknown> {
  const described: Record<string, unknown> = { method: request.method, url: request.url };
  let callback: string | undefined;
  try {
    callback = callbackName(spider, request.callback);
  } catch {
    callback = "(not a method of the spider)";
  }
  described.callback = callback ?? (request.rule === undefined ? "parse" : `rules[${request.rule}]`);
  if (Object.keys(request.meta).length > 0) described.meta = request.meta;
  if (Object.keys(request.cbKwargs).length > 0) described.cbKwargs = request.cbKwargs;
  return described;
}

/** Prints `levels` to `out`, as JSON Lines or as the readable report. */
export function printLevels(
  levels: readonly ParseLevel[],
  spider: Spider,
  jsonl: boolean,
  out: (text: string) => void,
): void {
  let text = "";
  for (const { level, pages } of levels) {
    if (!jsonl) text += `>>> level ${level} <<<\n`;
    for (const page of pages) {
      text += jsonl ? pageLines(level, page, spider) : pageReport(page, spider);
    }
  }
  out(text);
}

function pageLines(level: number, page: ParsedPage, spider: Spider): string {
  const line = (value: Record<string, unknown>) => JSON.stringify({ level, ...value }) + "\n";
  let text = line({ type: "page", url: page.url, status: page.status, callback: page.callback });
  for (const item of page.items) text += line({ type: "item", item });
  for (const request of page.requests) text += line({ type: "request", ...describeRequest(spider, request) });
  if (page.error !== undefined) text += line({ type: "error", url: page.url, message: page.error });
  return text;
}

function pageReport(page: ParsedPage, spider: Spider): string {
  if (page.status === undefined) return `${page.url}\n  ${page.error}\n`;
  let text = `${page.url} (${page.status}) -> ${page.callback}\n`;
  text += `  items (${page.items.length})\n`;
  for (const item of page.items) text += `    ${JSON.stringify(item)}\n`;
  text += `  requests (${page.requests.length})\n`;
  for (const request of page.requests) {
    const { method, url, callback, meta, cbKwargs } = describeRequest(spider, request);
    const extra = [meta && `meta ${JSON.stringify(meta)}`, cbKwargs && `cbKwargs ${JSON.stringify(cbKwargs)}`]
      .filter(Boolean).join(" ");
    text += `    ${method} ${url} -> ${callback}${extra ? " " + extra : ""}\n`;
  }
  if (page.error !== undefined) text += `  error: ${page.error}\n`;
  return text;
}
