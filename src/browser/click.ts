/**
 * One click, made as Playwright makes it. A click aimed at where an element was a moment ago lands on whatever is
 * there now: under a "Load more" button whose list grows above it, that is a freshly inserted product link, and the
 * crawl then returns the product page as the listing. So the element must be attached, visible, enabled, still over
 * two animation frames, and the one the page finds at the point to be clicked; and while the pointer's events are
 * sent, a listener that runs before the page's own checks that each one reaches the element, and stops any that
 * would reach something else (the element moved in between), after which the click is tried again.
 */
import type { ElementHandle, JSHandle, Page } from "puppeteer-core";

/** What the page says of the element, the last time it was looked at. */
type Probe =
  | { state: "ready"; x: number; y: number }
  | { state: "hidden" | "disabled" | "moving" | "detached" }
  | { state: "covered"; by: string };

/**
 * Runs in the page with the element: checks it as above, scrolls it into view, and when it is ready puts the guard
 * on the window (capture phase, so before the page's listeners). Written as text: it runs in the page, whose DOM
 * types this code is not compiled with.
 */
const PROBE = `async (element) => {
  const describe = (node) => !node ? "nothing" : node.nodeName.toLowerCase() + (node.id ? "#" + node.id : "") +
    (typeof node.className === "string" && node.className.trim() ? "." + node.className.trim().split(/\\s+/).join(".") : "");
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
  const box = () => { const r = element.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
  if (!element.isConnected) return { probe: { state: "detached" } };
  const style = getComputedStyle(element);
  const [, , width, height] = box();
  if (style.visibility !== "visible" || width * height === 0) return { probe: { state: "hidden" } };
  if (element.disabled === true || element.closest("fieldset[disabled]") !== null) return { probe: { state: "disabled" } };
  const [left, top] = box();
  if (top < 0 || left < 0 || top + height > innerHeight || left + width > innerWidth) {
    element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  }
  await frame();
  const first = box();
  await frame();
  const second = box();
  if (!element.isConnected) return { probe: { state: "detached" } };
  if (first.some((value, i) => value !== second[i])) return { probe: { state: "moving" } };
  const x = second[0] + second[2] / 2, y = second[1] + second[3] / 2;
  const root = element.getRootNode();
  const hit = (typeof root.elementFromPoint === "function" ? root : document).elementFromPoint(x, y);
  if (hit === null || (hit !== element && !element.contains(hit))) return { probe: { state: "covered", by: describe(hit) } };
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
  const guard = { blocked: "", remove: () => types.forEach((type) => removeEventListener(type, check, true)) };
  function check(event) {
    if (!event.isTrusted) return;
    if (guard.blocked === "" && event.composedPath().includes(element)) return;
    if (guard.blocked === "") guard.blocked = describe(event.composedPath()[0]);
    event.preventDefault();
    event.stopImmediatePropagation();
  }
  types.forEach((type) => addEventListener(type, check, true));
  return { probe: { state: "ready", x, y }, guard };
}`;

/** Takes the guard off and says what it stopped ("" for nothing); a page that navigated away took it with it. */
const UNGUARD = `(result) => { result.guard.remove(); return result.guard.blocked; }`;

/** What one attempt found, in words for a step's timeout message. */
export function describeProbe(selector: string, probe: Probe | undefined): string {
  if (probe === undefined) return `no element matches ${selector}`;
  switch (probe.state) {
    case "covered":
      return `${selector} is covered by ${probe.by}`;
    case "moving":
      return `${selector} keeps moving`;
    case "ready":
      return `${selector} did not get the click`;
    default:
      return `${selector} is ${probe.state}`;
  }
}

/** What {@link clickWhenReady} reports while it waits, and how it ended. */
export interface ClickWait {
  /** Epoch ms after which it gives up. */
  until: number;
  /**
   * Milliseconds: give up once the element has been missing, hidden or disabled this long (a repeated click's
   * "gone"). Undefined: wait for it until `until`.
   */
  goneAfterMs?: number;
  /** Told what stands in the way each time an attempt fails, for the step's message. */
  waiting(why: string): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Clicks the element `selector` names once it is ready, trying again until `wait.until`. Resolves true once a click
 * reached it, false when it was gone for `wait.goneAfterMs` (or the time ran out: the step's own timeout reports it).
 */
export async function clickWhenReady(page: Page, selector: string, wait: ClickWait): Promise<boolean> {
  let absentSince = Date.now();
  while (Date.now() < wait.until) {
    const element = await page.$(selector);
    let probe: Probe | undefined;
    let result: JSHandle | undefined;
    try {
      if (element) {
        result = await (element as ElementHandle).evaluateHandle(pageFunction(PROBE)).catch(() => undefined);
        probe = result ? await result.evaluate(pageFunction("(result) => result.probe")) as Probe : undefined;
      }
      if (probe?.state === "ready") {
        await page.mouse.click(probe.x, probe.y);
        // A click that navigated took the guard with its page: nothing was stopped, since the guard lets the
        // element's own events through and stops everything after one that went astray.
        const blocked = await result!.evaluate(pageFunction(UNGUARD)).catch(() => "") as string;
        if (blocked === "") return true;
        wait.waiting(`the click on ${selector} reached ${blocked}: it moved`);
        continue;
      }
    } finally {
      await result?.dispose().catch(() => {});
      await element?.dispose().catch(() => {});
    }
    wait.waiting(describeProbe(selector, probe));
    const present = probe !== undefined && probe.state !== "hidden" && probe.state !== "disabled" &&
      probe.state !== "detached";
    if (present) absentSince = Date.now();
    else if (wait.goneAfterMs !== undefined && Date.now() - absentSince >= wait.goneAfterMs) return false;
    if (!present) await sleep(50);
  }
  return false;
}

/** Page-side source as a function puppeteer can send (it sends a function's text). */
function pageFunction(source: string): (...args: unknown[]) => unknown {
  return new Function(`return (${source}).apply(this, arguments)`) as (...args: unknown[]) => unknown;
}
