/**
 * Running a request's steps in its tab, one after another, each within its own time limit and the request's.
 * A step that fails or runs out of time fails the request with a FetchError (`browser_step`) that names the step
 * and its index; the engine retries it and hands it to the errback as it does an HTTP failure.
 */
import { type Page, type PaperFormat, type PDFOptions, type Protocol, ProtocolError } from "puppeteer-core";
import { FetchError } from "../errors.ts";
import type { Rendered } from "../spider/response.ts";
import { resolveCallback } from "../spider/callbacks.ts";
import type { Spider } from "../spider/spider.ts";
import { calledMethod, describeStep, field, type ParsedStep, uploadFiles } from "../spider/steps.ts";
import { uploadPaths } from "../spider/step_checks.ts";
import { browserErrorMessage } from "./browser_error.ts";
import { clickWhenReady } from "./click.ts";
import type { DialogAnswer, Tab } from "./pool.ts";

/** How long a click waits to see whether it started a navigation, before taking it that it did not. */
const CLICK_SETTLE_MS = 40;
/**
 * How long a navigation the page asked for may take to begin. Chromium reports the request while the click is being
 * handled, but a form's submission begins in a task of its own, after the page's beforeunload handlers, which with a
 * heavy handler or on a loaded machine comes well after CLICK_SETTLE_MS. Fragment links, `location.hash`,
 * `history.pushState`, `javascript:` links, downloads and new windows report no such request, so they never wait
 * here. A request Chromium drops (another navigation replaced it, say) is not waited for past this.
 */
const REQUESTED_START_MS = 5000;
/** Clicks a repeated click makes at most (`repeat: true`). */
const MAX_REPEAT = 200;
/** Scroll rounds at most when scrolling until no new content comes (`max` overrides). */
const DEFAULT_SCROLL_ROUNDS = 50;

/** What the steps of one render share. */
export interface StepRun {
  tab: Tab;
  spider: Spider;
  uploadDir: string | null;
  /** Epoch ms by which the whole render must be done. */
  deadline: number;
  rendered: Rendered;
  /** Main-frame documents requested so far (a click that navigates adds one). */
  navigations(): number;
  /** Resolves once the page has had no request of this render going for `idleMs`; throws past `until` (epoch ms). */
  networkIdle(idleMs: number, until: number): Promise<void>;
  /** How the page's dialogs are to be answered from now on. */
  answerDialogs(answer: (event: Protocol.Page.JavascriptDialogOpeningEvent) => DialogAnswer): void;
  /** Resolves when a navigation was refused or failed (it then never finishes loading). */
  navigationFailed: Promise<void>;
  /** Throws what went wrong with a navigation a step started (refused offsite, failed), if anything did. */
  checkNavigation(): void;
  /** What the running step waits for now, if it knows (`#buy is covered by div#banner`): said when it times out. */
  waiting?: string;
}

/** A step that ran out of time. */
class StepTimeout extends Error {}

/** What an evaluate step's script threw: the page's answer, which trying again would not change. */
class ScriptThrew extends Error {}

/**
 * A step's own time limit: `timeout` beside the action (`{ click: "#more", timeout: 5 }`) or inside the action's
 * object (`{ click: { selector: "#more", timeout: 5 } }`), where it is as natural to write.
 */
function ownTimeout(step: ParsedStep): number | undefined {
  const inside = field(step.arg, "timeout");
  if (step.timeout !== undefined || inside === undefined) return step.timeout;
  if (typeof inside !== "number" || !(inside > 0) || !Number.isFinite(inside)) {
    throw new TypeError(`${step.action} timeout must be a number of seconds above 0`);
  }
  return inside;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => timer = setTimeout(() => reject(new StepTimeout()), ms));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function selectorOf(step: ParsedStep): string {
  const selector = typeof step.arg === "string" ? step.arg : field(step.arg, "selector");
  if (typeof selector !== "string" || selector === "") throw new TypeError(`${step.action} needs a selector`);
  return selector;
}

function seconds(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
    throw new TypeError(`${what} must be a number of seconds`);
  }
  return value;
}

/** Runs every step in order. */
export async function runSteps(steps: ParsedStep[], run: StepRun): Promise<void> {
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index];
    const left = run.deadline - Date.now();
    let own: number | undefined;
    try {
      own = ownTimeout(step);
    } catch (error) {
      throw new FetchError("browser_step", `${describeStep(step, index)} failed: ${(error as Error).message}`);
    }
    const ms = Math.min(own === undefined ? Infinity : own * 1000, left);
    if (ms <= 0) throw new FetchError("timeout", `${describeStep(step, index)} had no time left to run`);
    run.waiting = undefined;
    try {
      await withTimeout(runStep(step, run, ms), ms);
      run.checkNavigation();
    } catch (error) {
      if (error instanceof FetchError && error.reason !== "browser_step") throw error;
      run.checkNavigation();
      if (error instanceof ScriptThrew) {
        throw new FetchError("browser_script", `${describeStep(step, index)} threw ${error.message}`, { cause: error });
      }
      const why = error instanceof StepTimeout
        ? `timed out after ${Math.round(ms) / 1000} s${run.waiting ? `: ${run.waiting}` : ""}`
        : `failed: ${browserErrorMessage(error)}`;
      throw new FetchError("browser_step", `${describeStep(step, index)} ${why}`, { cause: error });
    }
  }
}

async function runStep(step: ParsedStep, run: StepRun, ms: number): Promise<void> {
  const page = run.tab.page;
  switch (step.action) {
    case "click":
      return await click(step, run, ms);
    case "wait_for":
      return await waitFor(step, run, ms);
    case "scroll":
      return await scroll(step, page, ms);
    case "fill": {
      const value = field(step.arg, "value");
      if (typeof value !== "string") throw new TypeError("fill needs a string value");
      await page.locator(selectorOf(step)).setTimeout(ms).fill(value);
      return;
    }
    case "select": {
      const selector = selectorOf(step);
      const given = field(step.arg, "values") ?? field(step.arg, "value");
      const values = typeof given === "string" ? [given] : given;
      if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
        throw new TypeError("select needs a value or values (strings)");
      }
      await page.waitForSelector(selector, { timeout: ms });
      const chosen = await page.select(selector, ...values);
      if (chosen.length === 0) throw new Error(`no option of ${selector} has the value ${values.join(", ")}`);
      return;
    }
    case "evaluate":
      run.rendered.evaluated.push(await evaluate(step, page));
      return;
    case "set_input_files": {
      const files = uploadFiles(step.arg);
      if (files === undefined) throw new TypeError("set_input_files names no files");
      const paths = await uploadPaths(files, run.uploadDir);
      if (!Array.isArray(paths)) throw new Error(paths.detail);
      const input = await page.waitForSelector(selectorOf(step), { timeout: ms });
      // Typed for HTMLInputElement, which needs the DOM types; waitForSelector found the element the step named.
      await (input as unknown as { uploadFile(...paths: string[]): Promise<void> }).uploadFile(...paths);
      return;
    }
    case "call": {
      const name = calledMethod(step.arg);
      if (name === undefined) throw new TypeError("call names no method");
      const method = resolveCallback(run.spider, name);
      const args = field(step.arg, "args");
      // The method gets puppeteer's live Page; it may click, type or wait as it likes, within the step's time. It may
      // also change the tab itself (an init script, request interception, a viewport), which nothing could undo: so
      // the tab is closed after this request rather than handed to the next.
      run.tab.changedByCall = true;
      const result = await method(page as never, (args ?? {}) as Record<string, unknown>);
      run.rendered.evaluated.push(asJson(result, "call"));
      return;
    }
    case "dialog":
      run.answerDialogs(dialogAnswers(step));
      return;
    case "screenshot": {
      const fullPage = field(step.arg, "full_page") ?? field(step.arg, "fullPage");
      const bytes = await page.screenshot({ type: "png", fullPage: fullPage === true });
      run.rendered.screenshots.push(new Uint8Array(bytes));
      return;
    }
    case "pdf":
      run.rendered.pdfs.push(await page.pdf({ ...pdfOptions(step.arg), timeout: ms }));
      return;
  }
}

/** Paper sizes a `pdf` step's `format` may name (puppeteer's, case as written or in lower case). */
const PDF_FORMATS = ["letter", "legal", "tabloid", "ledger", "a0", "a1", "a2", "a3", "a4", "a5", "a6"];

/** A `pdf` step's options: `true` (A4, portrait, no backgrounds) or `{ format, landscape, printBackground }`. */
function pdfOptions(arg: unknown): PDFOptions {
  if (arg === true || arg === null) return { format: "a4" };
  if (typeof arg !== "object" || Array.isArray(arg)) {
    throw new TypeError("pdf takes true or { format, landscape, printBackground }");
  }
  const format = field(arg, "format") ?? "a4";
  if (typeof format !== "string" || !PDF_FORMATS.includes(format.toLowerCase())) {
    throw new TypeError(`pdf format must be one of ${PDF_FORMATS.join(", ")}, not ${JSON.stringify(format)}`);
  }
  const landscape = field(arg, "landscape") ?? false;
  const background = field(arg, "printBackground") ?? field(arg, "print_background") ?? false;
  if (typeof landscape !== "boolean") throw new TypeError("pdf landscape must be true or false");
  if (typeof background !== "boolean") throw new TypeError("pdf printBackground must be true or false");
  return { format: format.toLowerCase() as PaperFormat, landscape, printBackground: background };
}

/**
 * After something that may navigate: wait for the document it loads, if it started one. `before` and `requested` are
 * the navigations begun and asked for before it.
 */
async function settle(run: StepRun, before: number, requested: number): Promise<void> {
  await sleep(CLICK_SETTLE_MS);
  const begun = () => run.navigations() > before || run.tab.loading;
  if (!begun() && run.tab.navigationRequests > requested) {
    let failed = false;
    run.navigationFailed.then(() => failed = true);
    const until = Math.min(run.deadline, Date.now() + REQUESTED_START_MS);
    while (!begun() && !failed && Date.now() < until) await sleep(10);
  }
  if (begun()) await Promise.race([run.tab.loaded(), run.navigationFailed]);
}

async function click(step: ParsedStep, run: StepRun, ms: number): Promise<void> {
  const page = run.tab.page;
  const selector = selectorOf(step);
  const repeat = field(step.arg, "repeat");
  if (repeat !== undefined && repeat !== true && !(Number.isInteger(repeat) && (repeat as number) > 0)) {
    throw new TypeError("click repeat must be true (until the element is gone) or a number of clicks");
  }
  const times = repeat === true ? MAX_REPEAT : (repeat as number | undefined) ?? 1;
  // Between repeated clicks, how long the element may take to show again before it counts as gone.
  const gone = seconds(field(step.arg, "wait"), "click wait", 2) * 1000;
  const until = Date.now() + ms;
  for (let n = 0; n < times; n++) {
    const before = run.navigations();
    const requested = run.tab.navigationRequests;
    const clicked = await clickWhenReady(page, selector, {
      until,
      goneAfterMs: n > 0 ? gone : undefined,
      waiting: (why) => run.waiting = why,
    });
    if (!clicked) {
      if (n > 0) return;
      throw new StepTimeout(); // said with what the click waited for
    }
    await settle(run, before, requested);
    run.checkNavigation();
  }
}

async function waitFor(step: ParsedStep, run: StepRun, ms: number): Promise<void> {
  const page = run.tab.page;
  const arg = step.arg;
  if (typeof arg === "number") return await sleep(seconds(arg, "wait_for", 0) * 1000);
  if (arg === "networkidle" || arg === "network_idle") {
    return await run.networkIdle(500, Date.now() + ms);
  }
  if (arg === "load") return await Promise.race([run.tab.loaded(), run.navigationFailed]);
  if (typeof arg === "string") return void await page.waitForSelector(arg, { timeout: ms });
  const time = field(arg, "time");
  if (time !== undefined) return await sleep(seconds(time, "wait_for time", 0) * 1000);
  if (field(arg, "network_idle") === true) {
    const idle = seconds(field(arg, "idle"), "wait_for idle", 0.5);
    return await run.networkIdle(idle * 1000, Date.now() + ms);
  }
  const selector = selectorOf(step);
  const state = field(arg, "state") ?? "attached";
  if (state !== "attached" && state !== "visible" && state !== "hidden") {
    throw new TypeError(`wait_for state must be attached, visible or hidden, not ${JSON.stringify(state)}`);
  }
  await page.waitForSelector(selector, { timeout: ms, visible: state === "visible", hidden: state === "hidden" });
}

async function scroll(step: ParsedStep, page: Page, ms: number): Promise<void> {
  const arg = step.arg;
  const selector = field(arg, "selector");
  if (typeof selector === "string") {
    const element = await page.waitForSelector(selector, { timeout: ms });
    await element!.scrollIntoView();
    return;
  }
  const by = field(arg, "by");
  if (by !== undefined) {
    if (typeof by !== "number" || !Number.isFinite(by)) throw new TypeError("scroll by must be a number of pixels");
    await page.evaluate(`window.scrollBy(0, ${by})`);
    return;
  }
  const until = field(arg, "until");
  // Page-side code as strings: it runs in the page, whose DOM types this code is not compiled with.
  const toBottom = () =>
    page.evaluate(
      "window.scrollTo(0, document.documentElement.scrollHeight), document.documentElement.scrollHeight",
    ) as Promise<number>;
  if (until === undefined) {
    if (arg !== true && arg !== "bottom" && field(arg, "to") !== "bottom") {
      throw new TypeError('scroll takes "bottom", { by }, { selector } or { until: "no_new_content" }');
    }
    await toBottom();
    return;
  }
  if (until !== "no_new_content" && until !== "end") throw new TypeError('scroll until must be "no_new_content"');
  const rounds = field(arg, "max") ?? DEFAULT_SCROLL_ROUNDS;
  if (!Number.isInteger(rounds) || (rounds as number) < 1) throw new TypeError("scroll max must be a whole number");
  // How long to wait after each scroll for the page to grow before taking it that nothing more will come.
  const wait = seconds(field(arg, "wait"), "scroll wait", 1) * 1000;
  let height = await toBottom();
  for (let round = 1; round < (rounds as number); round++) {
    const grown = await page.waitForFunction(`document.documentElement.scrollHeight > ${height}`, {
      timeout: wait,
      polling: 50,
    }).then(() => true, () => false);
    if (!grown) return;
    height = await toBottom();
  }
}

/**
 * How a `dialog` step answers the page's dialogs from then on: `"accept"`, `"dismiss"`, or `{ accept, text }` (`text`:
 * what a prompt is answered with). A `beforeunload` dialog is accepted either way, so a navigation a step starts goes
 * on.
 */
export function dialogAnswers(step: ParsedStep): (event: Protocol.Page.JavascriptDialogOpeningEvent) => DialogAnswer {
  const arg = step.arg;
  const accept = arg === "accept" || arg === true || field(arg, "accept") === true;
  if (!accept && arg !== "dismiss" && arg !== false && field(arg, "accept") !== false) {
    throw new TypeError('dialog takes "accept", "dismiss" or { accept: true, text: "..." }');
  }
  const text = field(arg, "text");
  if (text !== undefined && typeof text !== "string") throw new TypeError("dialog text must be a string");
  return (event) => ({ accept: accept || event.type === "beforeunload", text: text as string | undefined });
}

/**
 * An evaluate step's script: a function's source (called, with `args`) or an expression; a promise is awaited.
 * The result must survive JSON, since it reaches the callback (and workers, and the feeds) as data.
 */
async function evaluate(step: ParsedStep, page: Page): Promise<unknown> {
  const arg = step.arg;
  const source = typeof arg === "string" ? arg : field(arg, "script") ?? field(arg, "expression");
  if (typeof source !== "string" || source.trim() === "") throw new TypeError("evaluate needs a script (a string)");
  const args = field(arg, "args") ?? [];
  if (!Array.isArray(args)) throw new TypeError("evaluate args must be an array");
  const script = `(async () => { const value = (${source}\n); ` +
    `return typeof value === "function" ? await value(...${JSON.stringify(args)}) : await value; })()`;
  let result: unknown;
  try {
    result = await page.evaluate(script);
  } catch (error) {
    if (!thrownByScript(error)) throw error;
    const threw = error instanceof Error ? `${error.name}: ${error.message}` : JSON.stringify(error) ?? String(error);
    throw new ScriptThrew(threw, { cause: error });
  }
  return asJson(result, "evaluate");
}

/**
 * Whether an evaluate's failure is the script's own exception, rather than the page going away under it (a
 * navigation, a closed tab, a hung browser), which another try may get past.
 */
function thrownByScript(error: unknown): boolean {
  if (error instanceof ProtocolError) return false; // TargetCloseError is one too
  const message = (error as Error)?.message ?? "";
  return !/Execution context was destroyed|Cannot find context|Target closed|Session closed|detached/i.test(message);
}

/** A step's result as the JSON it travels as (undefined: null); a result that is not JSON fails the step. */
function asJson(result: unknown, what: string): unknown {
  if (result === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(result)) ?? null;
  } catch (error) {
    throw new TypeError(`${what} returned something that is not JSON: ${(error as Error).message}`);
  }
}
