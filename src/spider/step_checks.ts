/**
 * What a request's browser steps may do, checked for every request the crawl takes from its frontier, whichever
 * store it came out of. Whoever can write to a shared queue can write steps, and steps act in Chromium on the
 * crawling machine (shared/spec/distributed.md, "Keeping Redis safe"); and every request of a crawl comes back out
 * of its store, the spider's own included. So the rules hold for all of them:
 *
 * - `set_input_files` uploads files from this machine: only files inside `browserUploadDir` may be uploaded, and
 *   without that setting no request may upload at all;
 * - `call` runs a spider method with the live page: the method must be one a callback may name (the spider's own
 *   methods, parse, on_block, _sitemap; never a dunder or the rest of Spider).
 *
 * When a step's files or method cannot be made out, the request is refused: nothing unclear is let through. The
 * codec checks the same `call` rule when it decodes (so a Redis entry naming a forbidden method is `queue_bad`);
 * this is the check the memory store's requests, which are never decoded, pass too.
 */
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { resolveCallback } from "./callbacks.ts";
import type { Step } from "./request.ts";
import type { Spider } from "./spider.ts";
import { calledMethod, parseStep, uploadFiles } from "./steps.ts";

/** Why steps were refused: `upload` is a request this process's settings turn down, `steps` one nobody may run. */
export interface StepRefusal {
  reason: "upload" | "steps";
  detail: string;
}

/** Whether `path` is `dir` or inside it (both already resolved through symlinks). */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The real paths of files to upload, checked against the upload directory. Relative names are taken inside it;
 * symlinks are followed, so a link inside pointing outside is refused; a file that does not exist cannot be shown
 * to be inside, and is refused.
 */
export async function uploadPaths(files: string[], uploadDir: string | null): Promise<string[] | StepRefusal> {
  if (uploadDir === null) return { reason: "upload", detail: "set_input_files needs browser_upload_dir" };
  let dir: string;
  try {
    dir = await realpath(resolve(uploadDir));
  } catch {
    return { reason: "upload", detail: `browser_upload_dir ${uploadDir} cannot be read` };
  }
  const paths: string[] = [];
  for (const file of files) {
    let real: string;
    try {
      real = await realpath(resolve(dir, file));
    } catch {
      return { reason: "upload", detail: `${file} is not a file inside browser_upload_dir` };
    }
    if (!inside(dir, real)) return { reason: "upload", detail: `${file} is outside browser_upload_dir` };
    paths.push(real);
  }
  return paths;
}

/** Checks a request's steps; undefined when they may run. */
export async function checkSteps(
  spider: Spider,
  steps: readonly Step[] | undefined,
  uploadDir: string | null,
): Promise<StepRefusal | undefined> {
  if (steps === undefined) return undefined;
  for (let index = 0; index < steps.length; index++) {
    let step;
    try {
      step = parseStep(steps[index], index);
    } catch (error) {
      return { reason: "steps", detail: (error as Error).message };
    }
    if (step.action === "call") {
      const name = calledMethod(step.arg);
      if (name === undefined) return { reason: "steps", detail: `step ${index}: a call step that names no method` };
      try {
        resolveCallback(spider, name);
      } catch (error) {
        return { reason: "steps", detail: `step ${index}: call: ${(error as Error).message}` };
      }
    }
    if (step.action === "set_input_files") {
      const files = uploadFiles(step.arg);
      if (files === undefined) {
        return { reason: "upload", detail: `step ${index}: a set_input_files step with no files named` };
      }
      const checked = await uploadPaths(files, uploadDir);
      if (!Array.isArray(checked)) return { reason: checked.reason, detail: `step ${index}: ${checked.detail}` };
    }
  }
  return undefined;
}
