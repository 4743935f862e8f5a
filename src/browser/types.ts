/** The types a spider sees of the browser: the live page a `call` step's method is given (puppeteer's Page). */
export type { BrowserPage } from "../spider/browser_page.ts";
