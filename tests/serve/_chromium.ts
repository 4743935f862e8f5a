/**
 * The serve pages' browser tests' pieces: the app on a real socket of 127.0.0.1 (the service's own HTTP front), and
 * Debian's Chromium, headless, driven through puppeteer-core, with every console message and failed request kept, so
 * a test can say the page ran no script and loaded nothing it shouldn't (a CSP violation shows as a console error).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Hono } from "hono";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { startHttpServer } from "../../src/serve/http_server.ts";

/** Where Debian puts Chromium (.ci/run installs it when missing). */
export const CHROMIUM = "/usr/bin/chromium";

/** A browser page with what it has said so far. */
export interface WatchedPage {
  page: Page;
  /** Console messages of type error or warning, and page errors. */
  problems: string[];
  /** Requests that failed or went anywhere other than the service. */
  strayRequests: string[];
}

/** Serves `app` on 127.0.0.1 (a free port) for `body`, then stops it. */
export async function withServedApp<T>(app: Hono, body: (url: string) => Promise<T>): Promise<T> {
  const server = await startHttpServer((request) => app.fetch(request), {
    hostname: "127.0.0.1",
    port: 0,
    log: () => {},
  });
  try {
    return await body(`http://127.0.0.1:${server.port}`);
  } finally {
    await server.close();
  }
}

/** Runs `body` with a headless Chromium, closed afterwards. */
export async function withChromium<T>(body: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  try {
    return await body(browser);
  } finally {
    await browser.close();
  }
}

/** A new page that records console problems and requests leaving `origin`. */
export async function watchedPage(browser: Browser, origin: string): Promise<WatchedPage> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  const watched: WatchedPage = { page, problems: [], strayRequests: [] };
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warn") watched.problems.push(message.text());
  });
  page.on("pageerror", (error) => watched.problems.push(String(error)));
  page.on("request", (request) => {
    if (!request.url().startsWith(origin)) watched.strayRequests.push(request.url());
  });
  page.on("requestfailed", (request) => watched.problems.push(`failed: ${request.url()}`));
  return watched;
}

/**
 * Takes a screenshot of the whole page into `dir/name.png` and returns its path: the test's record of what the page
 * looked like (kept in NETWEIR_SCREENSHOTS when that is set, in the test's temporary directory otherwise).
 */
export async function screenshot(page: Page, dir: string, name: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.png`) as `${string}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The page's text as a person sees it (innerText: laid out, hidden parts left out). */
export function bodyText(page: Page): Promise<string> {
  return page.$eval("body", (body) => (body as unknown as { innerText: string }).innerText);
}
