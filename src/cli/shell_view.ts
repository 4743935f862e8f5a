/**
 * `view(page)` in `netweir shell`: what Netweir received, written to a temporary .html file whose links resolve
 * against the page's URL (a `<base>` is added, as Scrapy's `view` does), its path printed; opened in a browser when
 * the shell runs in a terminal of a desktop (DISPLAY or WAYLAND_DISPLAY set, or BROWSER naming one).
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { Page } from "../spider/page.ts";

/** The page's body with a `<base href>` after `<head>` (or at the start) when it has none of its own. */
function withBase(page: Page): string {
  const text = page.text;
  if (/<base\s[^>]*href/i.test(text)) return text;
  const base = `<base href="${page.url.replaceAll('"', "&quot;")}">`;
  const head = /<head(\s[^>]*)?>/i.exec(text);
  return head
    ? text.slice(0, head.index + head[0].length) + base + text.slice(head.index + head[0].length)
    : base + text;
}

/** The command that opens a file in a browser here, if there is a desktop to open it on. */
function browserCommand(): string | undefined {
  const chosen = runtime.env("BROWSER");
  if (chosen) return chosen;
  return runtime.env("DISPLAY") || runtime.env("WAYLAND_DISPLAY") ? "xdg-open" : undefined;
}

/** Writes the page to a temporary file and returns the line the shell prints; opens it when it can. */
export async function viewPage(page: unknown, interactive: boolean): Promise<string> {
  if (!(page instanceof Page)) throw new TypeError("view() takes a page: fetch one first, or pass one");
  const path = join(tmpdir(), `netweir-view-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.html`);
  await writeFile(path, withBase(page));
  const command = interactive ? browserCommand() : undefined;
  if (command) {
    const child = spawn(command, [path], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  }
  return path;
}
