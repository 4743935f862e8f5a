/**
 * A page of divs nested DEPTH deep against a flat page of the same bytes and elements: the milliseconds `css(SELECTOR)`
 * takes on a fresh page (the DOM built by the call), then on the built DOM. Prints figures, asserts nothing.
 *
 *   deno run -A scripts/bench/deep_page.ts [DEPTH=200000] [SELECTOR=div:first-child]
 *
 * DEPTH 1800000 is the 20 MB page of the issue that did not finish in 16 minutes.
 */
import { makeResponse, Page, Request } from "../../mod.ts";

const depth = Number(Deno.args[0] ?? 200_000);
const selector = Deno.args[1] ?? "div:first-child";
const nested = `<html><body>${"<div>".repeat(depth)}x${"</div>".repeat(depth)}</body></html>`;
const flat = `<html><body>${"<div></div>".repeat(depth)}x</body></html>`;

for (const [name, html] of [["nested", nested], ["flat", flat]] as const) {
  const page = new Page(makeResponse(new Request("http://127.0.0.1/"), { body: html }));
  let start = performance.now();
  const found = page.css(selector).length;
  const fresh = performance.now() - start;
  start = performance.now();
  page.css(selector).length;
  const built = performance.now() - start;
  console.log(
    `${name}: ${(html.length / 1e6).toFixed(1)} MB, ${selector} found ${found}, fresh page ${fresh.toFixed(0)} ms, ` +
      `DOM built ${built.toFixed(0)} ms`,
  );
}
