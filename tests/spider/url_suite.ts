/**
 * The WHATWG URL test data (tests/fixtures/urltestdata) run through a page's links: each case's input is the href of
 * an `<a>`, resolved by `follow()`, by `links()` and by a region of a link extractor (`restrictCss`), each on a page
 * of its own (they find the page's base by different ways: a scan of the text, or the DOM). The case's base is the
 * page's URL, or, with `withBaseElement`, the page's `<base href>` on a page whose own URL is elsewhere.
 *
 * The library comes in as an argument, so that the same code runs on the sources under Deno and on the npm build
 * under Node 22 (tests/spider/url_suite_test.ts).
 */
import type { LinkExtractor, makeResponse, Page, Request } from "../../mod.ts";

/** The parts of the library the suite drives. */
export interface UrlSuiteApi {
  Page: typeof Page;
  Request: typeof Request;
  LinkExtractor: typeof LinkExtractor;
  makeResponse: typeof makeResponse;
}

/** One case of urltestdata.json (the fields used here). */
export interface UrlCase {
  input: string;
  base: string | null;
  href?: string;
  failure?: boolean;
}

export interface UrlSuiteResult {
  /** Cases whose three answers were all as the data says. */
  passed: number;
  /** One line for each case that went otherwise. */
  failed: string[];
  /**
   * The failed cases where the runtime's own `URL` parser disagrees with the data too, and Netweir gives the
   * runtime's answer: a difference of the runtime (which Netweir uses), not of Netweir's link handling.
   */
  runtimeDiffers: number;
  /** Cases no page can hold, or that have no base for this run (see `runUrlSuite`). */
  skipped: number;
}

/** The page's own URL where the base comes from a `<base>`: unlike any base of the data. */
const ELSEWHERE = "https://page.netweir.test/one/two.html";
/**
 * The page's URL for a case without a base: one nothing resolves against (it has an opaque path), so an input
 * resolves as it would with no base at all, but for a fragment alone (those cases expect a failure, and are skipped).
 */
const NO_BASE = "about:blank";

/** Escaped for a double-quoted attribute value. */
function attribute(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
}

/** The link a page gives for `href`: http(s) only, without its fragment. */
function asLink(href: string): string[] {
  if (!href.startsWith("http://") && !href.startsWith("https://")) return [];
  const hash = href.indexOf("#");
  return [hash === -1 ? href : href.slice(0, hash)];
}

/**
 * Whether an HTML page can carry `text` unchanged in an attribute: the HTML parser makes NUL U+FFFD (a character
 * reference to it too), and a lone surrogate has no UTF-8 bytes.
 */
function representable(text: string): boolean {
  return !text.includes("\0") && text.isWellFormed();
}

/** What the three answers got wrong, when `href` (or "failure") is the right answer. */
function differences(answers: { follow: string; links: string; region: string }, href: string): string[] {
  const links = JSON.stringify(href === "failure" ? [] : asLink(href));
  const problems: string[] = [];
  if (answers.follow !== href) problems.push(`follow() gave ${answers.follow}`);
  if (answers.links !== links) problems.push(`links() gave ${answers.links}`);
  if (answers.region !== links) problems.push(`restrictCss gave ${answers.region}`);
  return problems;
}

/**
 * Runs every case. Skipped: inputs or bases a page cannot carry; with `withBaseElement`, the cases without a base;
 * without it, the cases without a base that expect a failure (a page always has a URL, so a relative input resolves).
 */
export function runUrlSuite(api: UrlSuiteApi, data: readonly unknown[], withBaseElement: boolean): UrlSuiteResult {
  const result: UrlSuiteResult = { passed: 0, failed: [], runtimeDiffers: 0, skipped: 0 };
  const cases = data.filter((entry): entry is UrlCase => typeof entry === "object" && entry !== null);
  for (const test of cases) {
    if (!representable(test.input) || (test.base !== null && !representable(test.base))) {
      result.skipped++;
      continue;
    }
    if (test.base === null && (withBaseElement || test.failure)) {
      result.skipped++;
      continue;
    }
    const head = withBaseElement ? `<base href="${attribute(test.base!)}">` : "";
    const html = `<!doctype html><html><head>${head}</head><body><a href="${
      attribute(test.input)
    }">x</a></body></html>`;
    const url = withBaseElement ? ELSEWHERE : test.base ?? NO_BASE;
    const newPage = () => {
      const response = api.makeResponse(new api.Request(ELSEWHERE), {
        body: html,
        url,
        headers: { "content-type": "text/html; charset=utf-8" },
      });
      return new api.Page(response);
    };
    let followed: string;
    try {
      followed = newPage().follow(test.input).url;
    } catch (error) {
      followed = error instanceof TypeError ? "failure" : `${error}`;
    }
    const answers = {
      follow: followed,
      links: JSON.stringify(newPage().links()),
      region: JSON.stringify(new api.LinkExtractor({ restrictCss: "a", denyExtensions: [] }).candidates(newPage())),
    };
    const problems = differences(answers, test.failure ? "failure" : test.href!);
    if (problems.length === 0) {
      result.passed++;
      continue;
    }
    const runtime = URL.parse(test.input, test.base ?? NO_BASE)?.href ?? "failure";
    if (differences(answers, runtime).length === 0) result.runtimeDiffers++;
    const expected = test.failure ? "failure" : test.href;
    result.failed.push(`${JSON.stringify(test.input)} against ${test.base}, expected ${expected}: ${problems}`);
  }
  return result;
}
