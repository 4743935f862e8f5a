/**
 * Descendant combinators matched in time that grows with the page's size, not its size times its depth. css-select
 * matches `body div` right to left: for each div it walks up the ancestors until one is a body, every time, so a
 * page of divs nested 40,000 deep took 31 s (on the DOM and on the light document alike). css-select has a cache for
 * that walk (each ancestor remembers whether it or one above it matched), but uses it only in selectors that have
 * an expensive part (`:has`, `:contains`) left of the combinator, where it pays most.
 *
 * `withCachedDescendants` puts one there: `:is(*, :has(*))` at the head of each selector that has a descendant
 * combinator. It matches every element (`*` does), so the selector means what it meant, and css-select reduces it to
 * nothing at compile time (a list with `*` in it always matches); it only tells css-select the selector is worth
 * caching. tests/spider/dom_search_test.ts holds the answers to css-select's own and the time on a deep page to a
 * flat one.
 */
import { parse, type Selector } from "css-what";

/** Matches every element, and counts as expensive to css-select (`:has` rates 0). */
const CACHE_DESCENDANTS: Selector = parse(":is(*, :has(*))")[0][0];

const TRAVERSALS = new Set(["descendant", "child", "sibling", "adjacent", "parent", "column-combinator"]);

/** `css` parsed, with CACHE_DESCENDANTS leading each selector that has a descendant combinator (none leading). */
export function withCachedDescendants(css: string): Selector[][] {
  return parse(css).map((selector) => {
    if (selector.length === 0 || TRAVERSALS.has(selector[0].type)) return selector;
    return selector.some((part) => part.type === "descendant") ? [CACHE_DESCENDANTS, ...selector] : selector;
  });
}
