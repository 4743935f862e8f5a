/** The TypeScript examples of a guide page that name their file on their first line (`// spiders/books.ts`). */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
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
