/**
 * The bare loop's page reading (scripts/bench/bare_crawl.mjs): one streaming pass of htmlparser2 picking up a page's
 * hrefs and a product's title and price. Its own file so that scripts/bench/selectors.ts times the same pass.
 */
import { Parser } from "htmlparser2";

/** The page's hrefs, and the product's title and price when it is a product page. */
export function scan(html) {
  const hrefs = [];
  let capture = null;
  const found = { title: "", price: "" };
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === "a" && attributes.href !== undefined) hrefs.push(attributes.href);
      else if (name === "h1") capture = "title";
      else if (name === "p" && attributes.class === "price") capture = "price";
    },
    ontext(text) {
      if (capture) found[capture] += text;
    },
    onclosetag() {
      capture = null;
    },
  }, { decodeEntities: true });
  parser.end(html);
  return { hrefs, ...found };
}
