/**
 * How `netweir shell` shows a value: a selection as its matches (their HTML, or their text or attribute after
 * `::text` / `::attr()`), a page as `<200 URL>` and a request as `<GET URL>` (as Scrapy's shell shows them), the
 * rest as Node's inspect shows it.
 */
import { inspect } from "node:util";
import { Page } from "../spider/page.ts";
import { Request } from "../spider/request.ts";
import { Selection } from "../spider/selection.ts";

/** A match's HTML past this many characters is cut, with "..." at the end. */
const MATCH_CHARS = 200;
/** A selection shows at most this many matches, then how many more there are. */
const MATCHES_SHOWN = 20;

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length > MATCH_CHARS ? line.slice(0, MATCH_CHARS - 3) + "..." : line;
}

function showSelection(selection: Selection): string {
  const count = selection.length;
  if (count === 0) return "Selection (no matches)";
  const shown = Math.min(count, MATCHES_SHOWN);
  const lines = [`Selection (${count} ${count === 1 ? "match" : "matches"})`];
  const texts = selection.mode.kind === "element" ? undefined : selection.texts();
  for (let i = 0; i < shown; i++) {
    const value = texts ? JSON.stringify(texts[i]) : cut(selection.get(i).html() ?? "");
    lines.push(`  [${i}] ${value}`);
  }
  if (count > shown) lines.push(`  ... and ${count - shown} more`);
  return lines.join("\n");
}

/** One value as the shell prints it (without the trailing newline). */
export function showValue(value: unknown, colors = false): string {
  if (value instanceof Selection) return showSelection(value);
  if (value instanceof Page) return `<${value.status} ${value.url}>`;
  if (value instanceof Request) return `<${value.method} ${value.url}>`;
  return inspect(value, { colors, depth: 4 });
}
