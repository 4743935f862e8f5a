/** What `netweir parse URL` does once its command line is parsed (src/cli/parse.ts): loaded only when it runs. */
import { UsageError } from "../errors.ts";
import { asUsage, CommandError } from "./errors.ts";
import type { CommandContext } from "./context.ts";
import { requestFor } from "./fetch_run.ts";
import { openProbe, type SpiderOptionValues, withProjectSpider } from "./spider_options.ts";
import { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import { type ParseLevel, printLevels } from "./parse_report.ts";

export interface ParseOptions extends SpiderOptionValues {
  callback?: string;
  depth: string;
  meta?: string;
  cbKwargs?: string;
  render?: boolean;
  jsonl?: boolean;
}

/** A JSON object given on the command line (`--meta`, `--cb-kwargs`), or a UsageError naming the option. */
function jsonObject(option: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${option} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${option} must be a JSON object, like '{"key": "value"}'`);
  }
  return value as Record<string, unknown>;
}

function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(`--depth must be a whole number from 1, not "${value}"`);
  }
  return number;
}

/** The rule a URL would come through: the first whose link extractor takes it (Scrapy's parse does the same). */
function ruleFor(spider: Spider, url: string): number | undefined {
  const index = spider.rules.findIndex((rule) => rule.linkExtractor.matches(url));
  return index < 0 ? undefined : index;
}

/** The request parse starts from: the URL with the callback, meta and cbKwargs asked for. */
async function startRequest(url: string, options: ParseOptions, spider: Spider): Promise<Request> {
  const base = requestFor(url, { render: options.render });
  const meta = jsonObject("--meta", options.meta);
  const cbKwargs = jsonObject("--cb-kwargs", options.cbKwargs);
  if (options.callback !== undefined) {
    const { resolveCallback } = await import("../spider/callbacks.ts");
    asUsage(() => resolveCallback(spider, options.callback!));
  }
  const rule = options.callback === undefined ? ruleFor(spider, base.url) : undefined;
  return base.replace({ callback: options.callback, meta, cbKwargs, rule });
}

export async function runParse(url: string, given: ParseOptions, context: CommandContext): Promise<number> {
  const depth = wholeNumber(given.depth);
  const chosen = await withProjectSpider(given, url);
  if (chosen.spiderFile === undefined) throw new UsageError("parse needs the spider: --spider-file FILE");
  const options = { ...given, ...chosen } as ParseOptions;
  const probe = await openProbe(options);
  const { runCallback } = await import("../spider/callbacks.ts");
  const levels: ParseLevel[] = [];
  // Pages are listed in the order their requests were yielded, not in the order their answers came.
  const order = new Map<Request, number>();
  const failures: string[] = [];
  try {
    const start = await startRequest(url, options, probe.spider);
    await probe.run([start], async (outcome) => {
      const level = outcome.request.depth + 1;
      const entry = { url: outcome.request.url, items: [], requests: [] } as ParseLevel["pages"][number];
      entry.order = order.get(outcome.request) ?? 0;
      (levels[level - 1] ??= { level, pages: [] }).pages.push(entry);
      if (outcome.kind === "failed") {
        entry.error = outcome.error.message;
        failures.push(outcome.error.message);
        return;
      }
      if (outcome.kind === "dropped") {
        entry.error = `not fetched: ${outcome.reason}`;
        if (level === 1) failures.push(`${outcome.request.url} was not fetched: ${outcome.reason}`);
        return;
      }
      const { page, request } = outcome;
      entry.status = page.status;
      entry.callback = callbackLabel(request);
      try {
        for await (const output of runCallback(probe.spider, request, page)) {
          if (output instanceof Request) entry.requests.push(output);
          else entry.items.push(output);
        }
      } catch (error) {
        const message = `callback ${entry.callback} failed on ${request.url}: ${(error as Error)?.message ?? error}`;
        entry.error = message;
        failures.push(message);
      }
      for (const request of entry.requests) order.set(request, order.size + 1);
      return level < depth ? entry.requests : [];
    }).catch((error) => {
      // The crawl ended early: what was parsed is still reported.
      if (!(error instanceof CommandError)) throw error;
      failures.push(error.message);
    });
  } finally {
    await probe.close();
  }
  for (const level of levels) level?.pages.sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  printLevels(levels.filter(Boolean), probe.spider, options.jsonl === true, context.out);
  if (failures.length > 0) {
    context.err(`netweir: ${failures[0]}${failures.length > 1 ? ` (and ${failures.length - 1} more)` : ""}\n`);
    return 1;
  }
  return 0;
}

/** The callback a request goes to, in words: its name, its rule's, or parse. */
function callbackLabel(request: Request): string {
  if (typeof request.callback === "string") return request.callback;
  if (typeof request.callback === "function") return request.callback.name;
  return request.rule === undefined ? "parse" : `rules[${request.rule}]`;
}
