/** The types a spider sees of the browser: the live page a `call` step's method is given (puppeteer's Page). */
export type { Page as BrowserPage } from "puppeteer-core";
