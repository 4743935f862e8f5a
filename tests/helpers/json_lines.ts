/** Reading a JSON Lines feed a crawl is writing or wrote, for tests that watch one. */
import { readFile } from "node:fs/promises";

/** The records in the JSON Lines file at `path` (none while it does not exist yet). */
export async function readJsonLines(path: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}
