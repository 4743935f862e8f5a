/**
 * The XPath cases ported from parsel's and cssselect's tests (tests/fixtures/xpath/parsel_cases.json, answered by
 * parsel and lxml in scripts/xpath_cases/record_and_answer.py), run through Netweir, and compared with parsel's
 * answers.
 */
import { createHash } from "node:crypto";
import { isTag } from "domhandler";
import { textContent } from "domutils";
import { Page } from "../../src/spider/page.ts";
import type { Selection } from "../../src/spider/selection.ts";
import type { XPathSelection } from "../../src/spider/xpath_selection.ts";
import type { XPathItem } from "../../src/spider/xpath_select.ts";

/** One result, as the case file describes parsel's and as Netweir's are described for comparison. */
export interface Described {
  kind: string;
  name?: string;
  value?: string | number | boolean;
  /** An element's string-value over 200 characters, as the SHA-1 of its UTF-8 (as the case file keeps it). */
  valueSha1?: string;
}
/** A case's answer: its results, or an error. */
export type Answer = Described[] | { error: string };

export interface XPathCase {
  id: number;
  test: string;
  /** The document, from the file's list of documents. */
  html: string;
  chain: { query: string; variables: Record<string, string | number | boolean>; index: number }[];
  query: string;
  variables: Record<string, string | number | boolean>;
  expected: Answer;
}

const fixtures = new URL("../fixtures/xpath/", import.meta.url);

export async function readCases(): Promise<XPathCase[]> {
  const { readFile } = await import("node:fs/promises");
  const file = JSON.parse(await readFile(new URL("parsel_cases.json", fixtures), "utf8"));
  return file.cases.map((each: XPathCase & { document: number }) => ({ ...each, html: file.documents[each.document] }));
}

/** The cases where Netweir answers otherwise than parsel, by id: why, the query (to catch a stale id), Netweir's answer. */
export async function readDifferences(): Promise<Record<string, { why: string; query: string; netweir: Answer }>> {
  const { readFile } = await import("node:fs/promises");
  return JSON.parse(await readFile(new URL("netweir_differences.json", fixtures), "utf8"));
}

/** String-values longer than this are compared by their SHA-1 (record_and_answer.py's LONG_VALUE). */
const LONG_VALUE = 200;

function describe(item: XPathItem): Described {
  if (item.kind === "attribute") return { kind: "attribute", name: item.name, value: item.value };
  if (item.kind === "value") return { kind: "value", value: item.value };
  const node = item.node;
  if (isTag(node)) {
    const name = node.name.toLowerCase();
    const value = textContent(node);
    if (value.length <= LONG_VALUE) return { kind: "element", name, value };
    return { kind: "element", name, valueSha1: createHash("sha1").update(value).digest("hex") };
  }
  if (node.type === "text") return { kind: "text", value: node.data };
  if (node.type === "comment") return { kind: "comment", value: node.data };
  return { kind: node.type, value: "data" in node ? String(node.data) : "" };
}

/** Netweir's answer to a case: Page.fromHtml, each step of the chain, then the query. */
export function netweirAnswer(testCase: XPathCase): Answer {
  const page = Page.fromHtml(testCase.html, { url: "http://127.0.0.1/" });
  try {
    let selection: Selection | undefined;
    for (const step of testCase.chain) {
      const found: Selection = selection === undefined
        ? page.xpath(step.query, { variables: step.variables })
        : selection.xpath(step.query, { variables: step.variables });
      selection = found.get(step.index);
    }
    const result = (selection ?? page).xpath(testCase.query, { variables: testCase.variables }) as XPathSelection;
    return result.results.map(describe);
  } catch (error) {
    if (error instanceof SyntaxError) return { error: error.message };
    throw error;
  }
}

/** Whether Netweir's result matches parsel's: same kind, name and value (numbers and booleans as XPath's string()). */
function matches(expected: Described, got: Described): boolean {
  switch (expected.kind) {
    case "number": {
      if (got.kind !== "value") return false;
      const want = typeof expected.value === "number" ? expected.value : Number(expected.value);
      return Object.is(Number(got.value), want) || Number(got.value) === want;
    }
    case "boolean":
      return got.kind === "value" && got.value === String(expected.value);
    case "string":
      return got.kind === "value" && got.value === expected.value;
    default:
      return got.kind === expected.kind && got.name === expected.name && got.value === expected.value &&
        got.valueSha1 === expected.valueSha1;
  }
}

/** Whether Netweir's answer is parsel's (both errors count as the same answer, whatever the messages). */
export function agrees(expected: Answer, got: Answer): boolean {
  if (!Array.isArray(expected) || !Array.isArray(got)) return !Array.isArray(expected) && !Array.isArray(got);
  return expected.length === got.length && expected.every((each, i) => matches(each, got[i]));
}
