/**
 * The live page a render hook (`beforeRender`/`afterRender`) or a `call` step's method is given: puppeteer's Page.
 * Here, in the spider's layer, because the Spider class names it in its hooks; it is a type only, so a crawl that
 * renders nothing still loads nothing of puppeteer (src/browser/ is where puppeteer is imported for real).
 */
export type { Page as BrowserPage } from "puppeteer-core";
