/**
 * Where a spider file's syntax error is, as `file:line:column`, so its author can jump to it. Deno puts the place in
 * the error's message ("SyntaxError: Expected ',', got ';'\n  |\n3 | ...\n    at file:///x/spider.ts:3:46"), which
 * the one-line report cut off; Node puts it at the head of the stack of a TypeScript file it strips
 * ("/x/spider.ts:3\n<the source>\n<spaces>^"), the column being the caret's. Node's error for a JavaScript module
 * says no place at all (it keeps it for the report of an uncaught error): loadSpiders then asks the runtime to parse
 * the file again (runtime.moduleSyntaxError), and reads the place from that error's head.
 */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

/** A place in a file: the path as the user would write it (relative to `cwd` when under it), line and column. */
export interface SourcePlace {
  file: string;
  line: number;
  column: number;
}

const DENO_PLACE = /^\s*at (file:\/\/\S+?):(\d+):(\d+)\s*$/m;
/** Node's head: the file and line, the source (a line or more), then the caret under the place, spaces before it. */
const NODE_HEAD = /^((?:file:\/\/|\/)[^\n]*?):(\d+)\n(?:[^\n]*\n)+?( *)\^ *\n/;

function shownPath(pathOrUrl: string, cwd: string): string {
  const path = pathOrUrl.startsWith("file://") ? fileURLToPath(pathOrUrl) : pathOrUrl;
  const inside = relative(cwd, path);
  return inside.startsWith("..") || inside === "" ? path : inside;
}

/** The place of a syntax error thrown by importing a module, or undefined when the error says none. */
export function syntaxErrorPlace(error: unknown, cwd: string): SourcePlace | undefined {
  if (!(error instanceof Error)) return undefined;
  const deno = DENO_PLACE.exec(error.message);
  if (deno && /^SyntaxError\b/.test(error.message)) {
    return { file: shownPath(deno[1], cwd), line: Number(deno[2]), column: Number(deno[3]) };
  }
  const node = error.name === "SyntaxError" ? NODE_HEAD.exec(error.stack ?? "") : null;
  if (node) return { file: shownPath(node[1], cwd), line: Number(node[2]), column: node[3].length + 1 };
  return undefined;
}
