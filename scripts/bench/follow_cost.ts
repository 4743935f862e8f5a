/**
 * What a followed link costs the crawler's CPU, without the network. Prints, asserts nothing.
 *
 *   deno run -A scripts/bench/follow_cost.ts [PRODUCTS=3000] [--baseline=REV] [--rounds=3]
 *
 * The shop is generated in memory: product pages of about 10 KB with about 24 links each (related products linked
 * twice, as image and as title; links spelled relative, `./`, root-relative and absolute, with `#fragments`,
 * `utm_*` parameters, `mailto:` and `javascript:`), listing pages of 20 products, category pages. The spider is the
 * one a tutorial teaches: every link of every page followed, the duplicate filter left to drop repeats, written two
 * ways (`page.css("a").attrs("href")` and `page.links()`).
 *
 * For this tree and for the baseline (another revision, by default the merge base with main, taken out of git into
 * a temporary directory and imported from there), it prints:
 *
 * - scan: µs of CPU per page to get a page's links (`css("a").attrs("href")`, `links()`), on a fresh page each time;
 * - follow: µs per link to turn a href into a request and put it through the engine's checks and the memory
 *   frontier's duplicate filter, for links not seen before and for links seen already;
 * - crawl: µs of CPU per page for a whole in-process crawl of the shop (the engine, the spider, the frontier; a
 *   request middleware answers every request from memory in place of the network), and pages per CPU second;
 * - bare: the same crawl as a bare loop (an array queue, a Set of seen URLs, htmlparser2's tokenizer for the
 *   links): the ceiling, and each crawl's share of it.
 */
import { Tokenizer } from "htmlparser2";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuUsage } from "node:process";
import { pathToFileURL } from "node:url";
import { productPath, SHOP, shopPage } from "./follow_shop.ts";

const REPO = resolve(import.meta.dirname!, "../..");
const positional = Deno.args.filter((arg) => !arg.startsWith("--"));
const option = (name: string) => Deno.args.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
const PRODUCTS = Number(positional[0] ?? 3000);
const ROUNDS = Number(option("rounds") ?? 3);

// ---------------------------------------------------------------------------------------------------------------
// The crawlers under test, loaded from a tree (this one, or the baseline's)

// deno-lint-ignore no-explicit-any
type Lib = any;

interface Tree {
  name: string;
  lib: Lib;
  log: Lib;
  admission: Lib;
  pageFlow: Lib;
}

async function loadTree(name: string, root: string): Promise<Tree> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  return {
    name,
    lib: await load("mod.ts"),
    log: await load("src/log.ts"),
    admission: await load("src/engine/admission.ts"),
    pageFlow: await load("src/engine/page_flow.ts"),
  };
}

/** A revision's mod.ts and src/ in a temporary directory, to import from; the directory's path. */
function extractTree(revision: string): string {
  const dir = mkdtempSync(join(tmpdir(), "netweir-follow-baseline-"));
  execFileSync("sh", ["-c", `git -C "${REPO}" archive "${revision}" mod.ts src | tar -x -C "${dir}"`]);
  return dir;
}

const encoder = new TextEncoder();
const bodies = new Map<string, Uint8Array>();
function bodyOf(url: string): Uint8Array | undefined {
  let body = bodies.get(url);
  if (body === undefined) {
    const html = shopPage(url, PRODUCTS);
    if (html === undefined) return undefined;
    bodies.set(url, body = encoder.encode(html));
  }
  return body;
}

type Style = "css" | "links";

function spiderOf(tree: Tree, style: Style) {
  const { Spider, makeResponse } = tree.lib;
  class Natural extends Spider {
    startUrls = [`${SHOP}/`];
    middlewares = [{
      processRequest(request: Lib) {
        const body = bodyOf(request.url);
        return makeResponse(request, {
          status: body ? 200 : 404,
          body: body ?? "not found",
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      },
    }];
    *parse(page: Lib) {
      if (style === "css") { for (const href of page.css("a").attrs("href")) yield page.follow(href); }
      else for (const url of page.links()) yield page.follow(url);
    }
  }
  return new Natural();
}

function cpuMicros(): number {
  const { user, system } = cpuUsage();
  return user + system;
}

async function crawl(tree: Tree, style: Style): Promise<{ pages: number; micros: number }> {
  const { Crawl, Settings, resolveCrawlSettings } = tree.lib;
  const settings = resolveCrawlSettings({
    spider: new Settings(),
    profiles: {},
    overrides: new Settings({
      autothrottle: false,
      progress: false,
      concurrency: 64,
      per_domain: 64,
      min_delay: 0,
      obey_robots_txt: false,
      log_level: "error",
    }),
  });
  const before = cpuMicros();
  const stats = await new Crawl(spiderOf(tree, style), { settings, log: tree.log.createLogger("error") }).run();
  return { pages: stats.pages, micros: cpuMicros() - before };
}

/** The ceiling: an array queue, a Set of seen URLs, the tokenizer for the links, URL() to resolve them. */
function bareCrawl(): { pages: number; micros: number } {
  const before = cpuMicros();
  const decoder = new TextDecoder();
  const seen = new Set<string>([`${SHOP}/`]);
  const queue = [`${SHOP}/`];
  let pages = 0;
  for (let i = 0; i < queue.length; i++) {
    const body = bodyOf(queue[i]);
    pages++; // a 404 too, as the crawl's stats count it
    if (body === undefined) continue;
    const html = decoder.decode(body);
    let base = queue[i];
    const hrefs: string[] = [];
    let tag = "";
    let name = "";
    let value = "";
    const ignore = () => {};
    const tokenizer = new Tokenizer({ decodeEntities: true }, {
      onopentagname: (s, e) => tag = html.slice(s, e).toLowerCase(),
      onattribname: (s, e) => (name = html.slice(s, e).toLowerCase(), value = ""),
      onattribdata: (s, e) => value += html.slice(s, e),
      onattribentity: (c) => value += String.fromCodePoint(c),
      onattribend: () => {
        if (name !== "href") return;
        if (tag === "a") hrefs.push(value);
        else if (tag === "base") base = new URL(value, queue[i]).href;
      },
      onopentagend: ignore,
      onselfclosingtag: ignore,
      oncdata: ignore,
      onclosetag: ignore,
      oncomment: ignore,
      ondeclaration: ignore,
      onend: ignore,
      onprocessinginstruction: ignore,
      ontext: ignore,
      ontextentity: ignore,
    });
    tokenizer.write(html);
    tokenizer.end();
    for (const href of hrefs) {
      const url = URL.parse(href, base);
      if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) continue;
      url.hash = "";
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      queue.push(url.href);
    }
  }
  return { pages, micros: cpuMicros() - before };
}

// ---------------------------------------------------------------------------------------------------------------
// The parts: scan and follow

const SAMPLE = Array.from({ length: 200 }, (_, i) => `${SHOP}${productPath(i * 7 + 1)}`);

function pageOf(tree: Tree, url: string): Lib {
  const { Page, Request, makeResponse } = tree.lib;
  const request = new Request(url);
  return new Page(makeResponse(request, { body: bodyOf(url)!, headers: { "content-type": "text/html" } }));
}

function scanCost(tree: Tree, style: Style): number {
  let links = 0;
  const before = cpuMicros();
  for (const url of SAMPLE) {
    const page = pageOf(tree, url);
    links += style === "css" ? page.css("a").attrs("href").length : page.links().length;
  }
  if (links === 0) throw new Error("no links found");
  return (cpuMicros() - before) / SAMPLE.length;
}

/**
 * Each sample page's hrefs followed and put through what the engine does with a yielded request (admission, then
 * the frontier's duplicate filter), twice: the first time every product is new, the second every one is seen.
 */
function followCost(tree: Tree): { unseen: number; seen: number } {
  const admission = new tree.admission.Admission(
    { maxDepth: null, trapDetection: true, maxUrlLength: 2083, maxPagesPerDomain: null },
    [],
  );
  const frontier = new tree.lib.MemoryFrontier();
  const ctx = { admission, deltafetch: undefined, stats: { dropped() {} }, log: { debug() {} } };
  // What finishWith does with each yielded request: acceptYielded where the tree has it, else the loop it replaced.
  const accept: (request: Lib, depth: number) => Lib | undefined = tree.pageFlow.acceptYielded
    ? (request, depth) => tree.pageFlow.acceptYielded(ctx, request, depth)
    : (request, depth) => {
      const next = request.depth === depth + 1 ? request : request.replace({ depth: depth + 1 });
      return admission.checkYielded(next) ? undefined : next;
    };
  const pages = SAMPLE.map((url) => {
    const page = pageOf(tree, url);
    return { page, hrefs: page.css("a").attrs("href") as string[] };
  });
  const round = (): { micros: number; links: number } => {
    let links = 0;
    const before = cpuMicros();
    for (const { page, hrefs } of pages) {
      const requests = [];
      for (const href of hrefs) {
        links++;
        const next = accept(page.follow(href), page.depth);
        if (next) requests.push(next);
      }
      frontier.finish({ id: "-", request: page.request }, requests);
    }
    return { micros: cpuMicros() - before, links };
  };
  const first = round();
  const second = round();
  return { unseen: first.micros / first.links, seen: second.micros / second.links };
}

// ---------------------------------------------------------------------------------------------------------------

function mergeBase(): string {
  try {
    return execFileSync("git", ["-C", REPO, "merge-base", "HEAD", "main"], { encoding: "utf8" }).trim();
  } catch {
    return "HEAD";
  }
}

const only = option("only") as Style | undefined;
if (only !== undefined) {
  // For a profile (deno run --cpu-prof ...): this tree's crawl in one style, ROUNDS times, and nothing else.
  const tree = await loadTree("this tree", REPO);
  for (let round = 0; round < ROUNDS; round++) {
    const result = await crawl(tree, only);
    console.log(`${only}: ${result.pages} pages, ${(result.micros / result.pages).toFixed(1)} µs/page`);
  }
  Deno.exit(0);
}

const baselineRevision = option("baseline") ?? mergeBase();
const baselineDir = extractTree(baselineRevision);
try {
  const trees = [
    await loadTree("this tree", REPO),
    await loadTree(`baseline ${baselineRevision.slice(0, 10)}`, baselineDir),
  ];
  const bare = bareCrawl();
  console.log(
    `shop: ${PRODUCTS} products, ${bare.pages} pages, ${bodyOf(`${SHOP}${productPath(1)}`)!.length} bytes a product ` +
      `page; ${ROUNDS} rounds, best of each`,
  );
  const best = new Map<string, number>();
  const keep = (key: string, value: number) => best.set(key, Math.min(best.get(key) ?? Infinity, value));
  let bareMicros = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    bareMicros = Math.min(bareMicros, bareCrawl().micros / bare.pages);
    for (const tree of trees) {
      for (const style of ["css", "links"] as const) {
        keep(`${tree.name}|${style}|scan`, scanCost(tree, style));
        const result = await crawl(tree, style);
        if (result.pages !== bare.pages) {
          console.log(`  (${tree.name} ${style}: ${result.pages} pages, not ${bare.pages})`);
        }
        keep(`${tree.name}|${style}|crawl`, result.micros / result.pages);
      }
      const follow = followCost(tree);
      keep(`${tree.name}|unseen`, follow.unseen);
      keep(`${tree.name}|seen`, follow.seen);
    }
  }
  const f = (value: number) => value.toFixed(1).padStart(8);
  console.log(`bare loop: ${f(bareMicros)} µs/page, ${(1e6 / bareMicros).toFixed(0)} pages per CPU second`);
  console.log(
    "tree                 style   scan µs/page  follow µs/link (new, seen)  crawl µs/page  pages/CPU s  of bare",
  );
  for (const tree of trees) {
    for (const style of ["css", "links"] as const) {
      const crawlMicros = best.get(`${tree.name}|${style}|crawl`)!;
      console.log(
        `${tree.name.padEnd(20)} ${style.padEnd(6)} ${f(best.get(`${tree.name}|${style}|scan`)!)}      ` +
          `${f(best.get(`${tree.name}|unseen`)!)} ${f(best.get(`${tree.name}|seen`)!)}          ` +
          `${f(crawlMicros)} ${(1e6 / crawlMicros).toFixed(0).padStart(12)} ${
            (bareMicros / crawlMicros).toFixed(2).padStart(8)
          }`,
      );
    }
  }
} finally {
  rmSync(baselineDir, { recursive: true, force: true });
}
