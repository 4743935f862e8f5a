/**
 * A JavaScript module's syntax error with its place, on Node. Node's error for a module that does not parse says no
 * place (it keeps the place for its own report of an uncaught error), so the file is parsed again by the parser Node
 * strips TypeScript with, whose error starts its stack with "FILE:LINE", the source and a caret under the place. Only
 * after a load already failed: the parser is loaded then, not with every crawl.
 */
import { readFileSync } from "node:fs";
import nodeModule from "node:module";
import { pathToFileURL } from "node:url";
import { dropWarnings } from "./node_warnings.ts";

type Strip = (code: string, options: { mode: "strip"; sourceUrl: string }) => string;

/** The parser's error for the module at `path` (absolute), or undefined when it parses or cannot be read. */
export function nodeModuleSyntaxError(path: string): unknown {
  const strip = (nodeModule as unknown as { stripTypeScriptTypes?: Strip }).stripTypeScriptTypes;
  if (!strip) return undefined;
  let code: string;
  try {
    code = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const restore = dropWarnings("stripTypeScriptTypes is an experimental feature");
  try {
    strip(code, { mode: "strip", sourceUrl: pathToFileURL(path).href });
    return undefined;
  } catch (error) {
    return error;
  } finally {
    restore();
  }
}
