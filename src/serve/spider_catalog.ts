/**
 * What each spider file of a project declared (its spiders, their settings and profiles), kept between requests so
 * that listing and scheduling cost a few `stat` calls instead of a process per file. An entry is keyed by the file's
 * path, size, modification time and inode, together with a stamp of the project's other code files: a file whose key
 * has changed is read again, and all changed files of a project are read in one child process
 * (spider_reader.ts). An edited spider is seen by the next request, as before.
 *
 * Why the stamp: a spider file may take its settings from a helper (`lib/settings.ts`) whose edit leaves the spider
 * file's own key as it was, and which spider imports which helper is only known to the module loader in the child.
 * So an edit to any other code file under the project's directory makes every spider file of the project count as
 * changed (still one process). A spider file that extends another top-level spider file is the one case a cache keyed
 * per file gets wrong: touch it after editing the other (docs/design/serve.md).
 */
import { createHash } from "node:crypto";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { InspectResult } from "../load/inspect_result.ts";
import { type ReaderCommand, readSpiderFiles } from "./spider_reader.ts";

export interface CatalogOptions {
  cli: ReaderCommand;
  /** How long one file may take to import (a file that hangs is reported and the others are still read). */
  importTimeoutMs: number;
}

/** Code files the stamp looks at; other files (data, logs) can't change what a spider declares. */
const CODE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
/**
 * How deep and how far the stamp's walk goes: a project is a few files, not a tree worth a long walk per request (a
 * demo site or data folder beside the spiders costs a readdir per folder; two levels keep that to a few).
 */
const STAMP_DEPTH = 2;
const STAMP_MAX_ENTRIES = 5000;

/** A file's identity as the cache sees it, or undefined when it can't be stat'ed (then it is read, and fails there). */
async function fileKey(file: string): Promise<string | undefined> {
  // ctime too: a file rewritten with its old mtime put back (touch -d, an archive tool) still counts as changed.
  const info = await stat(file).catch(() => undefined);
  return info && `${info.size}:${info.mtimeMs}:${info.ino}:${info.dev}:${info.ctimeMs}`;
}

/** A digest of the code files under `dir` other than `own`, by path and identity. */
async function helperStamp(dir: string, own: ReadonlySet<string>): Promise<string> {
  const hash = createHash("sha1");
  let seen = 0;
  const walk = async (folder: string, depth: number): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++seen > STAMP_MAX_ENTRIES) return;
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (depth < STAMP_DEPTH) await walk(path, depth + 1);
      } else if (CODE_FILE.test(entry.name) && !own.has(path)) {
        hash.update(`${path}\0${await fileKey(path)}\n`);
      }
    }
  };
  await walk(dir, 0);
  return hash.digest("hex");
}

/** The cache of one service: every project's files, read when they change. */
export class SpiderCatalog {
  readonly #options: CatalogOptions;
  readonly #entries = new Map<string, { key: string; result: InspectResult }>();
  /** One read at a time per project directory: two requests that find the same files changed start one process. */
  readonly #busy = new Map<string, Promise<unknown>>();

  constructor(options: CatalogOptions) {
    this.#options = options;
  }

  /**
   * What `files` (absolute) declare, in their order, reading the ones that changed since they were last read in
   * one child process started in `cwd`.
   */
  describe(files: readonly string[], cwd: string): Promise<InspectResult[]> {
    const before = this.#busy.get(cwd) ?? Promise.resolve();
    const run = before.then(() => this.#describe(files, cwd));
    const settled = run.catch(() => {});
    this.#busy.set(cwd, settled);
    settled.then(() => {
      if (this.#busy.get(cwd) === settled) this.#busy.delete(cwd);
    });
    return run;
  }

  async #describe(files: readonly string[], cwd: string): Promise<InspectResult[]> {
    const stamp = await helperStamp(cwd, new Set(files));
    const keys = await Promise.all(files.map(async (file) => `${await fileKey(file)}/${stamp}`));
    const changed = files.filter((file, i) => this.#entries.get(file)?.key !== keys[i]);
    if (changed.length > 0) {
      const read = await readSpiderFiles(changed, {
        cli: this.#options.cli,
        cwd,
        importTimeoutMs: this.#options.importTimeoutMs,
      });
      for (const result of read) {
        const index = files.indexOf(result.file);
        this.#entries.set(result.file, { key: keys[index], result });
      }
    }
    return files.map((file) => this.#entries.get(file)!.result);
  }
}
