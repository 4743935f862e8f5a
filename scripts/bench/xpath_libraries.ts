/**
 * The XPath libraries on npm that Netweir could use, over the DOM Netweir builds (domhandler's, seen through the W3C
 * shadow tree of src/spider/xpath_dom.ts): how long each takes to load, and to answer the XPath a scraping callback
 * writes on the shop's list pages (20 products each) and book pages, a fresh shadow tree per page as in a crawl.
 * The libraries' answers are compared with each other first; then the `xpath` library as Netweir runs it (with the
 * `//` rewrite of xpath_optimise.ts), and parsel 1.7 with lxml on the same pages (Debian's python3-parsel, XPath
 * only: lxml's parse is left out as the DOM's is here) for scale. In-process, no network. Prints; asserts nothing.
 *
 *   deno run -A --no-lock scripts/bench/xpath_libraries.ts [PAGES=200] [ROUNDS=5]
 *
 * (--no-lock: the candidates are not Netweir's dependencies and stay out of deno.lock.)
 */
import { parseDocument } from "htmlparser2";
import type { Document } from "domhandler";
import { shopPage } from "../../examples/shop.ts";
import { buildXTree, type XNode } from "../../src/spider/xpath_dom.ts";
import { parseXPath } from "../../src/spider/xpath_select.ts";
import { median } from "./median.ts";
import { runCommand } from "../../tests/helpers/command.ts";

const pages = Number(Deno.args[0] ?? 200);
const rounds = Number(Deno.args[1] ?? 5);
const BOOKS = 1000;

const EXPRESSIONS = [
  "//article[@class='product_pod']/h3/a/@href",
  "//p[@class='price_color']/text()",
  "//li[@class='next']/a/@href",
  "count(//article)",
  "//article[.//p[contains(@class, 'star-rating')]]//h3/a/@title",
  // What cssselect makes of `p.price_color` (parsel's css() runs this).
  "descendant-or-self::p[@class and contains(concat(' ', normalize-space(@class), ' '), ' price_color ')]",
  "//table//tr[th='UPC']/td/text()",
  "string(//h1)",
];

/** Each library's face here: evaluate an expression on a document's shadow tree, giving strings. */
type Evaluate = (expression: string, root: XNode) => string[];

function strings(result: unknown): string[] {
  const all = Array.isArray(result) ? result : [result];
  return all.map((each) => {
    if (each === null || typeof each !== "object") return String(each);
    const node = each as XNode;
    return node.nodeType === 2 || node.nodeType === 3 ? String(node.nodeValue) : `<${node.nodeName}>`;
  });
}

/**
 * The module, and the median time of its first import in a fresh Deno (three of them): what a crawl pays the first
 * time it uses XPath. The import in this process comes after those, so its module is compiled warm, as theirs are not.
 */
async function timedImport<T>(specifier: string): Promise<{ module: T; ms: number }> {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); ` +
    "console.log(performance.now() - t)";
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const ran = await runCommand(Deno.execPath(), ["eval", "--no-lock", "--quiet", script]);
    times.push(ran.code === 0 ? Number(ran.stdout) : NaN);
  }
  return { module: await import(specifier) as T, ms: median(times) };
}

interface Candidate {
  name: string;
  loadMs: number;
  evaluate: Evaluate;
}

async function candidates(): Promise<Candidate[]> {
  const found: Candidate[] = [];
  {
    type Lib = { parse(e: string): { evaluate(o: { node: XNode }): { toArray?(): XNode[]; stringValue(): string } } };
    const { module, ms } = await timedImport<{ default: Lib }>("npm:xpath@0.0.34");
    const lib = module.default;
    const parsed = new Map<string, ReturnType<Lib["parse"]>>();
    found.push({
      name: "xpath 0.0.34 (XPath 1.0)",
      loadMs: ms,
      evaluate: (expression, root) => {
        let p = parsed.get(expression);
        if (!p) parsed.set(expression, p = lib.parse(expression));
        const result = p.evaluate({ node: root });
        return strings(result.toArray ? result.toArray() : result.stringValue());
      },
    });
  }
  found.push({
    name: "xpath 0.0.34 as Netweir runs it (// rewritten)",
    loadMs: NaN, // the library's, above
    evaluate: (expression, root) => {
      const result = parseXPath(expression).evaluate({ node: root, functions: () => undefined, namespaces: {} }) as {
        toArray?(): XNode[];
        stringValue(): string;
      };
      return strings(result.toArray ? result.toArray() : result.stringValue());
    },
  });
  {
    type Lib = {
      evaluateXPath(e: string, node: XNode, facade: null, vars: null, type: number): unknown;
      evaluateXPath_ANY_TYPE?: number;
    };
    const { module, ms } = await timedImport<{ default?: Lib } & Partial<Lib>>("npm:fontoxpath@3.34.0");
    const lib = (module.evaluateXPath ? module : module.default!) as Lib;
    found.push({
      name: "fontoxpath 3.34.0 (XPath 3.1)",
      loadMs: ms,
      evaluate: (expression, root) => {
        const result = lib.evaluateXPath(expression, root, null, null, 0);
        // fontoxpath answers attributes as objects of its own ({ nodeType: 2, value }), numbers as numbers.
        const all = Array.isArray(result) ? result : [result];
        return all.map((each) =>
          each !== null && typeof each === "object" && (each as { nodeType: number }).nodeType === 2
            ? String((each as { value: string }).value)
            : strings(each)[0]
        );
      },
    });
  }
  {
    type Lib = { install(window: unknown): void };
    const { module, ms } = await timedImport<{ default: Lib }>("npm:wicked-good-xpath@1.3.0");
    found.push({ name: "wicked-good-xpath 1.3.0 (XPath 1.0)", loadMs: ms, evaluate: wgxEvaluate(module.default) });
  }
  return found;
}

/** wicked-good-xpath installs document.evaluate on a window; here on a stand-in window whose document is the tree. */
function wgxEvaluate(lib: { install(window: unknown): void }): Evaluate {
  return (expression, root) => {
    const doc = root as XNode & {
      evaluate?: (
        ...args: unknown[]
      ) => {
        snapshotLength: number;
        snapshotItem(i: number): XNode;
        resultType: number;
        numberValue: number;
        stringValue: string;
      };
    };
    if (!doc.evaluate) lib.install({ document: doc });
    const result = doc.evaluate!(expression, root, null, 0, null);
    if (result.resultType === 1) return [String(result.numberValue)];
    if (result.resultType === 2) return [result.stringValue];
    const snapshot = doc.evaluate!(expression, root, null, 7, null);
    return strings(Array.from({ length: snapshot.snapshotLength }, (_, i) => snapshot.snapshotItem(i)));
  };
}

const html: string[] = [];
const listPages = Math.ceil(BOOKS / 20);
// List pages, and book pages (whose tables the UPC expression reads), alternating.
const bookPaths = [...shopPage("/catalogue/page-1.html", BOOKS).body.matchAll(/href="([^"]+_\d+\/index\.html)"/g)]
  .map((match) => `/catalogue/${match[1]}`);
for (let i = 0; i < pages; i++) {
  const path = i % 2 === 0 ? `/catalogue/page-${(i / 2) % listPages + 1}.html` : bookPaths[(i >> 1) % bookPaths.length];
  const page = shopPage(path, BOOKS);
  if (page.status !== 200) throw new Error(`the shop has no ${path}`);
  html.push(page.body);
}
const documents: Document[] = html.map((text) => parseDocument(text));

const all = await candidates();
console.log(`${pages} shop pages, ${EXPRESSIONS.length} expressions each, ${rounds} rounds; Deno ${Deno.version.deno}`);
const reference = all[0];
for (const candidate of all.slice(1)) {
  let differing = 0;
  let failing = 0;
  for (const expression of EXPRESSIONS) {
    const root = buildXTree(documents[1]).root;
    try {
      const want = JSON.stringify(reference.evaluate(expression, root));
      const got = JSON.stringify(candidate.evaluate(expression, buildXTree(documents[1]).root));
      if (want !== got) {
        differing++;
        console.log(`  ${expression}\n    xpath: ${want.slice(0, 120)}\n    ${candidate.name}: ${got.slice(0, 120)}`);
      }
    } catch {
      failing++;
    }
  }
  console.log(
    `${candidate.name}: answers differ from xpath's on ${differing}, fail on ${failing} of ${EXPRESSIONS.length}`,
  );
}
console.log("library | load (ms) | median ms per page (tree + expressions) | of which tree");
// Rounds go through every candidate in turn, so that the machine's busy moments fall on all of them alike.
const perPage = all.map(() => [] as number[]);
const treeOnly: number[] = [];
const failed = all.map(() => "");
for (let round = 0; round < rounds; round++) {
  let start = performance.now();
  for (const document of documents) buildXTree(document);
  treeOnly.push((performance.now() - start) / documents.length);
  all.forEach((candidate, index) => {
    if (failed[index]) return;
    start = performance.now();
    try {
      for (const document of documents) {
        const root = buildXTree(document).root;
        for (const expression of EXPRESSIONS) candidate.evaluate(expression, root);
      }
      perPage[index].push((performance.now() - start) / documents.length);
    } catch (error) {
      failed[index] = (error as Error).message.split("\n")[0];
    }
  });
}
all.forEach((candidate, index) => {
  const figures = failed[index] ? `failed: ${failed[index]}` : median(perPage[index]).toFixed(3);
  console.log(`${candidate.name} | ${candidate.loadMs.toFixed(1)} | ${figures} | ${median(treeOnly).toFixed(3)}`);
});

/** parsel's median per page, XPath only, over the same pages, with the same expressions (Debian's python3-parsel). */
async function parselFigure(): Promise<string> {
  const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(join(tmpdir(), "netweir-xpath-bench-"));
  try {
    await writeFile(join(dir, "pages.json"), JSON.stringify({ html, expressions: EXPRESSIONS, rounds }));
    const script = `
import json, sys, time, statistics
from parsel import Selector
data = json.load(open(sys.argv[1]))
selectors = [Selector(text=h) for h in data["html"]]
times = []
for _ in range(data["rounds"]):
    start = time.perf_counter()
    for s in selectors:
        for e in data["expressions"]:
            s.xpath(e).getall()
    times.append((time.perf_counter() - start) * 1000 / len(selectors))
print(f"{statistics.median(times):.3f}")
`;
    const ran = await runCommand("/usr/bin/python3", ["-c", script, join(dir, "pages.json")]);
    return ran.code === 0 ? ran.stdout.trim() : `failed: ${ran.stderr.trim().split("\n").pop()}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
console.log(`parsel 1.7 / lxml (XPath only, no tree to build) | - | ${await parselFigure()} | -`);
