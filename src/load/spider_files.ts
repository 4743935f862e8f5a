/** Which files `netweir list PATH` and a `netweir serve` project read spiders from. */
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { UsageError } from "../errors.ts";
import { runtime } from "../runtime/mod.ts";

/** Whether a directory entry is a spider file by its name. */
function isSpiderFileName(name: string): boolean {
  if (!/\.(ts|js|mts|mjs)$/.test(name) || /\.d\.m?ts$/.test(name)) return false;
  return !/[_.]test\.(ts|js)$/.test(name);
}

/** The files `list PATH` loads, as the user would write them (PATH joined with each name), in name order. */
export async function spiderFiles(path: string): Promise<string[]> {
  const absolute = resolve(runtime.cwd(), path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new UsageError(`no such file or directory: ${path}`);
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  for (const entry of await readdir(absolute, { withFileTypes: true })) {
    if (!isSpiderFileName(entry.name)) continue;
    const isFile = entry.isFile() ||
      (entry.isSymbolicLink() && (await stat(join(absolute, entry.name)).catch(() => undefined))?.isFile());
    if (isFile) files.push(join(path, entry.name));
  }
  return files.sort();
}
