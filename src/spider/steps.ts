/**
 * Browser steps (C23) as data: which actions there are, the two spellings a step may use, and how a step reads in
 * a message. A step names its action by its key (`{ click: "#more" }`) or by an `action` field
 * (`{ action: "click", selector: "#more" }`); in the second spelling the step itself is the argument. Steps travel
 * in queues and checkpoints as plain JSON, so this file only reads them: it runs nothing.
 */
import type { Step } from "./request.ts";

/** Every action a step may name. */
export const STEP_ACTIONS = [
  "click",
  "wait_for",
  "scroll",
  "fill",
  "select",
  "evaluate",
  "set_input_files",
  "call",
  "screenshot",
  "pdf",
  "dialog",
] as const;

export type StepAction = typeof STEP_ACTIONS[number];

const ACTIONS: ReadonlySet<string> = new Set(STEP_ACTIONS);

/** A step read into one shape: its action, its argument, and its own time limit in seconds if it gives one. */
export interface ParsedStep {
  action: StepAction;
  /** The value under the action's key, or the whole step in the `action:` spelling. */
  arg: unknown;
  timeout: number | undefined;
}

/** Reads a step; throws TypeError naming the step's index when it names no known action, or two. */
export function parseStep(step: Step, index: number): ParsedStep {
  if (typeof step !== "object" || step === null || Array.isArray(step)) {
    throw new TypeError(`step ${index} is not an object`);
  }
  const timeout = step.timeout;
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0 && Number.isFinite(timeout))) {
    throw new TypeError(`step ${index}: timeout must be a number of seconds above 0`);
  }
  if (Object.hasOwn(step, "action")) {
    if (typeof step.action !== "string" || !ACTIONS.has(step.action)) {
      throw new TypeError(`step ${index}: unknown action ${JSON.stringify(step.action)} (${STEP_ACTIONS.join(", ")})`);
    }
    return { action: step.action as StepAction, arg: step, timeout };
  }
  const named = Object.keys(step).filter((key) => ACTIONS.has(key));
  if (named.length !== 1) {
    const keys = Object.keys(step).filter((key) => key !== "timeout").join(", ") || "nothing";
    throw new TypeError(
      named.length === 0
        ? `step ${index}: no action in ${JSON.stringify(keys)} (${STEP_ACTIONS.join(", ")})`
        : `step ${index} names more than one action: ${named.join(", ")}`,
    );
  }
  const action = named[0] as StepAction;
  return { action, arg: step[action], timeout };
}

/** Reads every step of a list, in order; throws TypeError for the first one that is not a step. */
export function parseSteps(steps: readonly Step[] | undefined): ParsedStep[] {
  return (steps ?? []).map(parseStep);
}

/** A short description for messages: `step 2 (click "#more")`. */
export function describeStep(step: ParsedStep, index: number): string {
  const arg = step.arg;
  let detail = "";
  if (typeof arg === "string" || typeof arg === "number") detail = ` ${JSON.stringify(arg)}`;
  else if (typeof arg === "object" && arg !== null) {
    const record = arg as Record<string, unknown>;
    const selector = record.selector ?? record.method ?? record.name;
    if (typeof selector === "string") detail = ` ${JSON.stringify(selector)}`;
  }
  return `step ${index} (${step.action}${detail.length > 60 ? detail.slice(0, 57) + '..."' : detail})`;
}

/** The value of a field of an object argument, or undefined when the argument is not an object. */
export function field(arg: unknown, name: string): unknown {
  return typeof arg === "object" && arg !== null && !Array.isArray(arg)
    ? (arg as Record<string, unknown>)[name]
    : undefined;
}

/** The file names a set_input_files step gives: `files` (a string or strings); undefined when it names none. */
export function uploadFiles(arg: unknown): string[] | undefined {
  const files = typeof arg === "object" && arg !== null && !Array.isArray(arg) ? field(arg, "files") : arg;
  const list = typeof files === "string" ? [files] : files;
  if (!Array.isArray(list) || list.length === 0 || !list.every((file) => typeof file === "string" && file !== "")) {
    return undefined;
  }
  return list as string[];
}

/** The spider method a call step names: the argument itself, or its `method` (or `name`). */
export function calledMethod(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  const name = field(arg, "method") ?? field(arg, "name");
  return typeof name === "string" ? name : undefined;
}

/**
 * Whether a request is fetched by the browser whatever else holds: `render: true`, or any steps (steps force it, even
 * beside `render: "auto"`).
 */
export function rendersIn(request: { render: boolean | "auto"; steps: readonly Step[] | undefined }): boolean {
  return request.render === true || (request.steps !== undefined && request.steps.length > 0);
}

/** Code that asks for rendering: `render: true`, `render: "auto"` or `steps:` in a request's options. */
const RENDER_WORDS = /\brender\s*:\s*(true\b|["'`]auto["'`])|\bsteps\s*:/;

/**
 * Whether a spider may render, known before the crawl starts: a rule renders, or the spider's own classes ask for
 * `render: true` or `steps` somewhere in their code. The second is read from the classes' source, which is the only
 * way to know before a callback runs; a spider that builds its requests elsewhere is still served, and a rendered
 * request finds a missing browser when it comes.
 */
export function spiderMayRender(
  spider: object & { rules: ReadonlyArray<{ render: boolean | "auto"; steps?: unknown[] }> },
) {
  if (spider.rules.some((rule) => rule.render !== false || (rule.steps?.length ?? 0) > 0)) return true;
  for (
    let proto = Object.getPrototypeOf(spider);
    proto && proto !== Object.prototype && Object.hasOwn(proto, "constructor");
    proto = Object.getPrototypeOf(proto)
  ) {
    if (proto.constructor.name === "Spider" && Object.getPrototypeOf(proto) === Object.prototype) break;
    if (RENDER_WORDS.test(Function.prototype.toString.call(proto.constructor))) return true;
  }
  return false;
}
