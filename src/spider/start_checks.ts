/**
 * What is checked about a spider before anything is opened or fetched: Scrapy spellings that would make it do
 * nothing (scrapy_names.ts), its start lists (start_lists.ts), the callbacks its rules name (callback_checks.ts), and
 * its rules' region selectors, which would otherwise fail on every page, one by one. A problem is a UsageError: the spider file is what the user gave, so the command
 * exits 2 with one line. What only may be wrong is a warning for the crawl's log (spiderStartWarnings).
 */
import { compile } from "css-select";
import { UsageError } from "../errors.ts";
import { ruleCallbackProblem } from "./callback_checks.ts";
import { scrapySpellingProblem } from "./scrapy_names.ts";
import { allowedDomainWarnings, startListProblem } from "./start_lists.ts";
import { parseSelector } from "./selection.ts";
import { type Spider, spiderName } from "./spider.ts";

/** Throws a UsageError naming the first problem found with the spider. */
export function checkSpiderAtStart(spider: Spider): void {
  const name = spiderName(spider);
  const spelling = scrapySpellingProblem(spider, name, spider.pipelines ?? [], spider.middlewares ?? []);
  if (spelling) throw new UsageError(spelling);
  const lists = startListProblem(spider, name);
  if (lists) throw new UsageError(lists);
  const callback = ruleCallbackProblem(spider);
  if (callback) throw new UsageError(callback);
  for (const [index, rule] of (spider.rules ?? []).entries()) {
    const css = rule.linkExtractor?.restrictCss;
    if (!css) continue;
    try {
      compile(parseSelector(css).css);
    } catch (error) {
      const why = (error as Error)?.message ?? String(error);
      throw new UsageError(
        `spider ${name} rules[${index}]: restrictCss ${JSON.stringify(css)} is not a valid selector (${why})`,
      );
    }
  }
}

/** What may be wrong with the spider without stopping the crawl, one line each, for the crawl's log at start. */
export function spiderStartWarnings(spider: Spider): string[] {
  return allowedDomainWarnings(spider, spiderName(spider));
}
