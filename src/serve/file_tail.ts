/** The end of a file (a job's log, its items), read without reading the rest: the job page shows these. */
import { open } from "node:fs/promises";

/** The last `bytes` of a file as text, from the first whole line; "" when there is no such file (yet). */
export async function readTail(path: string, bytes: number): Promise<{ text: string; cut: boolean }> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return { text: "", cut: false };
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = new Uint8Array(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    let text = new TextDecoder().decode(buffer);
    // Starting mid-file, the first line is a piece of one: dropped, so every line shown is whole.
    if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    return { text, cut: start > 0 };
  } finally {
    await handle.close();
  }
}

/** The last `count` whole lines of a file that isn't being written past them (items end each line with \n). */
export async function lastLines(path: string, count: number, bytes = 64 * 1024): Promise<string[]> {
  const { text } = await readTail(path, bytes);
  const lines = text.split("\n");
  // A last line without its newline is an item still being written: left out.
  lines.pop();
  return lines.filter((line) => line.trim() !== "").slice(-count);
}
