/**
 * The callbacks a spider's rules and sitemap rules name, checked before the crawl: one naming no method failed only
 * when a page reached it, page after page (a `parse` the spider does not have threw "has no parse method" on each).
 */
import { callbackName, resolveCallback } from "./callbacks.ts";
import { Spider, spiderName } from "./spider.ts";

/** Why the callback `ref` of `where` cannot be called on `spider`, or undefined when it can. */
function callbackProblem(spider: Spider, ref: Parameters<typeof callbackName>[1], where: string): string | undefined {
  let name: string | undefined;
  try {
    name = callbackName(spider, ref);
    if (name === undefined) return undefined;
    // Spider's own parse only throws: a rule naming it sends every page to an error.
    if (name === "parse" && spider.parse === Spider.prototype.parse) {
      return `spider ${spiderName(spider)} ${where}: callback "parse" is not a method of the spider (it has no parse)`;
    }
    resolveCallback(spider, name);
    return undefined;
  } catch (error) {
    return `spider ${spiderName(spider)} ${where}: ${(error as Error).message}`;
  }
}

/** The first rule or sitemap rule (when the spider has sitemaps) whose callback is no method of the spider. */
export function ruleCallbackProblem(spider: Spider): string | undefined {
  for (const [index, rule] of (spider.rules ?? []).entries()) {
    const problem = callbackProblem(spider, rule.callback, `rules[${index}]`);
    if (problem) return problem;
  }
  if ((spider.sitemapUrls ?? []).length === 0) return undefined;
  for (const [index, [, ref]] of (spider.sitemapRules ?? []).entries()) {
    const problem = callbackProblem(spider, ref, `sitemapRules[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}
