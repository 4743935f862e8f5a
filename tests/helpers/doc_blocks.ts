/** The TypeScript examples of the guide's pages that name their file on their first line (`// spiders/books.ts`). */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "./cli.ts";

/** The code of each ```ts block of docs/`page` whose first line is `// FILE.ts`, by FILE. */
export async function namedDocBlocks(page: string): Promise<Map<string, string>> {
  const text = await readFile(join(REPO_ROOT, "docs", page), "utf8");
  const blocks = new Map<string, string>();
  for (const match of text.matchAll(/^```ts\n\/\/ ([\w./-]+\.ts)\n([\s\S]*?)^```$/gm)) {
    blocks.set(match[1], `// ${match[1]}\n${match[2]}`);
  }
  return blocks;
}

const DOCS = join(REPO_ROOT, "docs");
const MOD_URL = new URL("../../mod.ts", import.meta.url).href;
/** The shop's address in the pages (getting-started.md serves it there). */
const PAGE_SHOP = "http://127.0.0.1:8000/";

export interface Example {
  /** Where the page says the file goes, relative to the project. */
  file: string;
  /** The page it comes from, for messages. */
  page: string;
  code: string;
}

async function markdownFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...await markdownFiles(path));
    else if (entry.name.endsWith(".md")) found.push(path);
  }
  return found.sort();
}

/** The ```ts blocks of the guide that start with a `// FILE.ts` line. */
export async function guideExamples(): Promise<Example[]> {
  const found: Example[] = [];
  for (const path of await markdownFiles(DOCS)) {
    const text = await readFile(path, "utf8");
    for (const match of text.matchAll(/^```ts\n\/\/ ([\w./-]+\.ts)\n([\s\S]*?)^```$/gm)) {
      found.push({ file: match[1], page: path.slice(REPO_ROOT.length + 1), code: `// ${match[1]}\n${match[2]}` });
    }
  }
  return found;
}

/** A project like `netweir startproject` makes: "netweir" maps to this checkout's mod.ts. */
export async function writeProject(dir: string, files: Example[], shop: string): Promise<void> {
  await writeFile(join(dir, "deno.json"), JSON.stringify({ imports: { netweir: MOD_URL } }));
  for (const example of files) {
    await mkdir(dirname(join(dir, example.file)), { recursive: true });
    await writeFile(join(dir, example.file), example.code.replaceAll(PAGE_SHOP, shop));
  }
}
