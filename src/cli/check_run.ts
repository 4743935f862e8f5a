/**
 * What `netweir check FILE` does once its command line is parsed (src/cli/check.ts): every contract of the file's
 * spiders (src/spider/contracts.ts) run through a probe per spider (src/cli/probe.ts: the page fetched as a crawl of
 * the spider would fetch it, nothing written), the callback's output judged, one row per contract. With `--cache
 * DIR` the pages come from the HTTP cache once it holds them, so the contracts run offline. Loaded only when it runs.
 */
import { loadSpiders, pickSpider, spiderClassName } from "../load/spiders.ts";
import { Settings } from "../settings/settings.ts";
import { resolveCallback, runCallback } from "../spider/callbacks.ts";
import { contractList, contractRequest, judge, type NamedContract } from "../spider/contracts.ts";
import { Request } from "../spider/request.ts";
import type { Spider, SpiderClass } from "../spider/spider.ts";
import { applySpiderArgs } from "../spider/spider_args.ts";
import type { Item } from "../spider/types.ts";
import type { CommandContext } from "./context.ts";
import { asUsage, firstLine } from "./errors.ts";
import { Probe, type ProbeOutcome } from "./probe.ts";
import { settingPairs, type SpiderOptionValues } from "./spider_options.ts";

export interface CheckOptions extends SpiderOptionValues {
  cache?: string;
  list?: boolean;
}

/** One contract's result. */
interface Row {
  passed: boolean;
  name: string;
  url: string;
  detail: string;
}

function isCallback(spider: Spider, name: string): boolean {
  try {
    resolveCallback(spider, name);
    return true;
  } catch {
    return false;
  }
}

/** The URL of the spider's first start request, for contracts with relative URLs. */
async function firstStartUrl(spider: Spider): Promise<string | undefined> {
  for await (const start of spider.start()) return typeof start === "string" ? start : start.url;
  return undefined;
}

/** What a callback yields for a page, split into items and requests; its error as the contract's failure. */
async function outputOf(spider: Spider, outcome: Extract<ProbeOutcome, { kind: "page" }>) {
  const items: Item[] = [];
  const requests: Request[] = [];
  for await (const output of runCallback(spider, outcome.request, outcome.page)) {
    if (output instanceof Request) requests.push(output);
    else items.push(output);
  }
  return { items, requests };
}

/** Runs one spider's contracts; their rows, in the table's order. */
async function checkSpider(
  spider: Spider,
  name: string,
  contracts: NamedContract[],
  options: CheckOptions,
): Promise<Row[]> {
  const base = await firstStartUrl(spider);
  const requests = contracts.map((named) => asUsage(() => contractRequest(named, base)));
  const rows: Row[] = contracts.map((named, index) => ({
    passed: false,
    name: `${name}.${named.callback}`,
    url: requests[index].url,
    detail: "not run",
  }));
  const extra = options.cache === undefined ? [] : [`cache=${options.cache}`];
  const probe = Probe.open({ spider, overrides: Settings.fromPairs([...extra, ...settingPairs(options)]) });
  try {
    await probe.run(requests, async (outcome) => {
      const row = rows[requests.indexOf(outcome.request)];
      if (outcome.kind === "failed") return void (row.detail = outcome.error.message);
      if (outcome.kind === "dropped") return void (row.detail = `not fetched: ${outcome.reason}`);
      let output;
      try {
        output = await outputOf(probe.spider, outcome);
      } catch (error) {
        row.detail = `the callback threw: ${firstLine(error)}`;
        return;
      }
      const broken = judge(contracts[rows.indexOf(row)].contract, output);
      row.passed = broken === undefined;
      row.detail = broken ?? `${output.items.length} items, ${output.requests.length} requests`;
    });
  } finally {
    await probe.close();
  }
  return rows;
}

/** The rows as a table: result, contract, URL, and what was found or what broke it. */
function table(rows: readonly Row[]): string {
  const width = (pick: (row: Row) => string) => Math.max(...rows.map((row) => pick(row).length));
  const nameWidth = width((row) => row.name);
  const urlWidth = width((row) => row.url);
  return rows.map((row) =>
    `${row.passed ? "PASS" : "FAIL"}  ${row.name.padEnd(nameWidth)}  ${row.url.padEnd(urlWidth)}  ${row.detail}\n`
  ).join("");
}

/** Runs the contracts of `file`'s spiders (or of `--spider`); resolves with the exit status. */
export async function runCheck(file: string, options: CheckOptions, context: CommandContext): Promise<number> {
  const classes = await loadSpiders(file);
  const chosen: SpiderClass[] = options.spider === undefined ? classes : [pickSpider(classes, options.spider, file)];
  const rows: Row[] = [];
  for (const spiderClass of chosen) {
    const spider = new spiderClass();
    applySpiderArgs(spider, options.arg ?? []);
    const name = spiderClassName(spiderClass);
    const table = (spiderClass as unknown as { contracts?: unknown }).contracts;
    const contracts = asUsage(() => contractList(table, spiderClass.name, (callback) => isCallback(spider, callback)));
    if (options.list) {
      for (const named of contracts) context.out(`${name}.${named.callback}\t${named.contract.url}\n`);
      continue;
    }
    if (contracts.length > 0) rows.push(...await checkSpider(spider, name, contracts, options));
  }
  if (options.list) return 0;
  const failed = rows.filter((row) => !row.passed).length;
  context.out(table(rows));
  context.out(`${rows.length} contracts: ${rows.length - failed} passed, ${failed} failed\n`);
  if (failed > 0) context.err(`netweir: ${failed} of ${rows.length} contracts failed\n`);
  return failed > 0 ? 1 : 0;
}
