/**
 * The html5lib encoding tests (tests/fixtures/html5lib-encoding/*.dat), read as bytes: each case is `#data` (the
 * page's bytes; the newline before the next `#` line is no part of them) and `#encoding` (the label a browser decodes
 * the page with, given no BOM and no Content-Type charset).
 */
import { readFileSync } from "node:fs";

export interface EncodingCase {
  file: string;
  bytes: Uint8Array;
  /** The expected encoding, as its WHATWG name ("windows-1252", "euc-jp"). */
  encoding: string;
}

const DIRECTORY = new URL("../fixtures/html5lib-encoding/", import.meta.url);

/** Every case of a .dat file of the fixtures. */
export function encodingCases(file: string): EncodingCase[] {
  // As Latin-1, one character per byte, so the pages' bytes come back as they are in the file.
  const text = new TextDecoder("latin1").decode(readFileSync(new URL(file, DIRECTORY)));
  const cases: EncodingCase[] = [];
  for (const block of text.split(/^#data\n/m).slice(1)) {
    const split = block.search(/\n#encoding\n/);
    const data = block.slice(0, split);
    const label = block.slice(split).split("\n")[2].trim();
    const bytes = Uint8Array.from(data, (char) => char.charCodeAt(0));
    cases.push({ file, bytes, encoding: new TextDecoder(label).encoding });
  }
  return cases;
}
