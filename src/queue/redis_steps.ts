/**
 * What a request's browser steps may do when the request comes out of a shared queue. Whoever can write to the
 * queue can write steps, and steps act in Chrome on the crawling machine (shared/spec/distributed.md, "Keeping
 * Redis safe"), so two of them are checked before a queued request is used:
 *
 * - `set_input_files` uploads files from this machine: only files inside `browserUploadDir` may be uploaded, and
 *   without that setting no queued request may upload at all;
 * - `call` runs a spider method with the live page: the method must be one a callback may name (the spider's own
 *   methods, parse, on_block, _sitemap; never a dunder or the rest of Spider).
 *
 * A step names its action by its key (`{ click: "#more" }`, `{ set_input_files: { selector, files } }`,
 * `{ call: "fillForm" }`) or by an `action` field (`{ action: "call", method: "fillForm" }`). When a step's files
 * or method cannot be made out, the request is refused: nothing unclear is let through.
 */
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { resolveCallback } from "../spider/callbacks.ts";
import type { Step } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";

/** Why steps were refused: `upload` is a request this process's settings turn down, `bad` one nobody may run. */
export interface StepRefusal {
  reason: "upload" | "bad";
  detail: string;
}

/** The argument of a step's action, in either spelling; undefined when the step is not that action. */
function actionArgument(step: Step, action: string): { found: boolean; value: unknown } {
  if (Object.hasOwn(step, action)) return { found: true, value: step[action] };
  if (step.action === action) return { found: true, value: step };
  return { found: false, value: undefined };
}

/** The file names a set_input_files step gives: `files` (a string or strings), or the argument itself. */
function uploadFiles(value: unknown): string[] | undefined {
  const files = typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>).files
    : value;
  const list = typeof files === "string" ? [files] : files;
  if (!Array.isArray(list) || list.length === 0 || !list.every((file) => typeof file === "string" && file !== "")) {
    return undefined;
  }
  return list as string[];
}

/** The method a call step names: the argument itself, or its `method` (or `name`). */
function calledMethod(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const name = record.method ?? record.name;
  return typeof name === "string" ? name : undefined;
}

/** Whether `path` is `dir` or inside it (both already resolved through symlinks). */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Checks files against the upload directory. Relative names are taken inside it; symlinks are followed, so a link
 * inside pointing outside is refused; a file that does not exist cannot be shown to be inside, and is refused.
 */
async function checkUpload(files: string[], uploadDir: string | null): Promise<StepRefusal | undefined> {
  if (uploadDir === null) {
    return { reason: "upload", detail: "set_input_files from the queue needs browser_upload_dir" };
  }
  let dir: string;
  try {
    dir = await realpath(resolve(uploadDir));
  } catch {
    return { reason: "upload", detail: `browser_upload_dir ${uploadDir} cannot be read` };
  }
  for (const file of files) {
    let real: string;
    try {
      real = await realpath(resolve(dir, file));
    } catch {
      return { reason: "upload", detail: `${file} is not a file inside browser_upload_dir` };
    }
    if (!inside(dir, real)) return { reason: "upload", detail: `${file} is outside browser_upload_dir` };
  }
  return undefined;
}

/** Checks the steps of a request taken from a shared queue; undefined when they may run. */
export async function checkQueuedSteps(
  spider: Spider,
  steps: readonly Step[] | undefined,
  uploadDir: string | null,
): Promise<StepRefusal | undefined> {
  for (const step of steps ?? []) {
    const call = actionArgument(step, "call");
    if (call.found) {
      const name = calledMethod(call.value);
      if (name === undefined) return { reason: "bad", detail: "a call step that names no method" };
      try {
        resolveCallback(spider, name, { fromQueue: true });
      } catch (error) {
        return { reason: "bad", detail: `call step: ${(error as Error).message}` };
      }
    }
    const upload = actionArgument(step, "set_input_files");
    if (upload.found) {
      const files = uploadFiles(upload.value);
      if (files === undefined) return { reason: "upload", detail: "a set_input_files step with no files named" };
      const refusal = await checkUpload(files, uploadDir);
      if (refusal) return refusal;
    }
  }
  return undefined;
}
