/**
 * The ceiling for scripts/bench/broad.ts: the least a polite broad crawler can do, by hand. One keep-alive agent
 * (node:http, idle sockets closed after 4 s), a FIFO of URLs, a Set of seen ones, at most PER_HOST requests a host and CONCURRENCY in all,
 * robots.txt fetched once per host before its first page (a Disallow prefix list, nothing more), links found with
 * a regular expression. No retries, no stats, no items file.
 *
 *   deno run -A scripts/bench/broad_bare.mjs SEEDS_FILE [CONCURRENCY=1000] [PER_HOST=2]
 *
 * Prints one line of JSON: {"pages": N, "errors": N, "latencySum": seconds all pages took, added up}.
 */
import http from "node:http";
import { readFileSync } from "node:fs";
import process from "node:process";

const [seedsFile, concurrencyArg, perHostArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 1000);
const perHost = Number(perHostArg ?? 2);
// An idle socket is closed after 4 s, as Netweir's client closes its own (src/runtime/h1/client.ts): kept for ever,
// one a host, 20,000 sites would take more sockets than a process may open.
const agent = new http.Agent({ keepAlive: true, maxSockets: perHost + 1, timeout: 4000 });

/** Per host: its robots rules (undefined until fetched), its waiting URLs, its requests in flight. */
const hosts = new Map();
const ready = []; // hosts that may have work to start, from readyHead on
let readyHead = 0;
const seen = new Set();
let active = 0;
let pages = 0;
let errors = 0;
let latencySum = 0; // seconds, over the pages fetched

function get(url) {
  return new Promise((resolve) => {
    const request = http.get(url, { agent, timeout: 15_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => body += chunk);
      response.on("end", () => resolve({ status: response.statusCode, body }));
      response.on("error", () => resolve({ status: 0, body: "" }));
    });
    request.on("error", () => resolve({ status: 0, body: "" }));
    request.on("timeout", () => request.destroy());
  });
}

function add(url) {
  const hash = url.indexOf("#");
  if (hash >= 0) url = url.slice(0, hash);
  if (seen.has(url)) return;
  seen.add(url);
  const parsed = new URL(url);
  let host = hosts.get(parsed.host);
  if (!host) {
    host = { rules: undefined, waiting: [], active: 0, origin: parsed.origin };
    hosts.set(parsed.host, host);
  }
  host.waiting.push(parsed);
  ready.push(host);
}

function allowed(host, url) {
  return !host.rules.some((prefix) => url.pathname.startsWith(prefix));
}

async function fetchRobots(host) {
  host.active++;
  active++;
  const { status, body } = await get(`${host.origin}/robots.txt`);
  host.rules = status === 200 ? [...body.matchAll(/^Disallow:\s*(\S+)/gim)].map((match) => match[1]) : [];
  host.active--;
  active--;
  ready.push(host);
  pump();
}

async function fetchPage(host, url) {
  host.active++;
  active++;
  const started = performance.now();
  const { status, body } = await get(url.href);
  if (status === 200) {
    pages++;
    latencySum += (performance.now() - started) / 1000;
    for (const match of body.matchAll(/href="([^"]+)"/g)) add(new URL(match[1], url).href);
  } else errors++;
  host.active--;
  active--;
  ready.push(host);
  pump();
}

function pump() {
  while (active < concurrency && ready.length > readyHead) {
    // An index, not shift(): at 20,000 sites the FIFO holds hundreds of thousands, and shift() copies them all.
    const host = ready[readyHead++];
    if (readyHead > 65_536 && readyHead * 2 > ready.length) {
      ready.splice(0, readyHead);
      readyHead = 0;
    }
    if (host.active >= perHost || host.waiting.length === 0) continue;
    if (host.rules === undefined) {
      if (host.active === 0) fetchRobots(host);
      continue;
    }
    const url = host.waiting.shift();
    if (!allowed(host, url)) {
      ready.push(host);
      continue;
    }
    fetchPage(host, url);
    if (host.waiting.length > 0) ready.push(host);
  }
  if (active === 0 && ready.length === readyHead) {
    console.log(JSON.stringify({ pages, errors, latencySum }));
    process.exit(0);
  }
}

for (const line of readFileSync(seedsFile, "utf8").split("\n")) if (line) add(line);
pump();
