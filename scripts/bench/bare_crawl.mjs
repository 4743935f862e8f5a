/**
 * The ceiling for scripts/bench/crawl.ts: the least a crawler can do on the link shop, written by hand. Plain
 * JavaScript that runs unchanged on Deno and on Node: one keep-alive agent (node:http), an array for a queue, a
 * Set of seen URLs (fragment dropped), htmlparser2 in streaming (SAX) mode for the links and the item, JSON Lines
 * out. No retries, no robots.txt, no politeness, no stats: everything a crawler adds is what it costs over this.
 *
 *   node bare_crawl.mjs START_URL ITEMS_FILE [CONCURRENCY=64]      (htmlparser2 resolvable from the file)
 *   deno run -A scripts/bench/bare_crawl.mjs START_URL ITEMS_FILE
 *
 * Prints one line of JSON: {"pages": N, "items": N}.
 */
import http from "node:http";
import { createWriteStream } from "node:fs";
import process from "node:process";
import { scan } from "./sax_scan.mjs";

const [start, itemsFile, concurrencyArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 64);
const host = new URL(start).host;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const items = createWriteStream(itemsFile);

const queue = [start];
const seen = new Set([start]);
let pages = 0;
let itemCount = 0;
let active = 0;
let next = 0; // the queue's head: taken entries are left behind rather than shifted out

function get(url) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

async function crawl(url) {
  const { status, body } = await get(url);
  pages++;
  if (status !== 200) return;
  const { hrefs, title, price } = scan(body);
  if (url.includes("/p/")) {
    items.write(JSON.stringify({ title, price, url }) + "\n");
    itemCount++;
  }
  for (const href of hrefs) {
    let link;
    try {
      link = new URL(href, url);
    } catch {
      continue;
    }
    if (link.host !== host || (link.protocol !== "http:" && link.protocol !== "https:")) continue;
    link.hash = "";
    const key = link.href;
    if (seen.has(key)) continue;
    seen.add(key);
    queue.push(key);
  }
}

await new Promise((resolve, reject) => {
  const pump = () => {
    while (active < concurrency && next < queue.length) {
      active++;
      crawl(queue[next++]).then(() => {
        active--;
        if (active === 0 && next === queue.length) resolve();
        else pump();
      }, reject);
    }
  };
  pump();
});
await new Promise((resolve) => items.end(resolve));
agent.destroy();
console.log(JSON.stringify({ pages, items: itemCount }));
