/**
 * One HTTP client in a bare loop, for scripts/bench/http_clients.ts: PAGES fetches of BASE + `p/<n>.html`, AT at once,
 * each body read whole into bytes and dropped. Runs as it is on Deno and on Node 22 (which strips the types); prints
 * one line of JSON (pages, bytes, wall seconds, the heap's figures at the end) and nothing else.
 *
 *   deno run -A scripts/bench/http_client_loop.ts CLIENT BASE PAGES AT
 *   node scripts/bench/http_client_loop.ts CLIENT BASE PAGES AT      (UNDICI: the path of undici's index.js)
 *   NETWEIR_RUNTIME=npm/dist/src/runtime/mod.js node scripts/bench/http_client_loop.ts netweir-h2 BASE PAGES AT
 *
 * CLIENT is `fetch` (the runtime's own), `node:http` (one keep-alive agent), `undici.request`, `undici.fetch`, or
 * `netweir` (Netweir's HTTP/1.1 client, src/runtime/h1/client.ts, over the runtime's sockets: what its crawls use),
 * `netweir-h2` and `netweir-h1` (the runtime's client as crawls get it, src/runtime/h2/client.ts, with `http2`
 * auto and off: against an https BASE whose server offers h2, HTTP/2 on one connection against HTTP/1.1 over TLS).
 */
import process from "node:process";
import { Agent, get } from "node:http";
import { pathToFileURL } from "node:url";

type Get = (url: string) => Promise<number>;

interface Undici {
  Agent: new (options: { connections: number }) => unknown;
  request(url: string, options: { dispatcher: unknown }): Promise<{ body: { arrayBuffer(): Promise<ArrayBuffer> } }>;
  fetch(url: string, options: { dispatcher: unknown }): Promise<Response>;
}

async function loadUndici(): Promise<Undici> {
  const path = process.env.UNDICI;
  return await import(path ? pathToFileURL(path).href : "undici") as unknown as Undici;
}

async function client(name: string, at: number): Promise<Get> {
  switch (name) {
    case "fetch":
      return async (url) => (await (await fetch(url)).arrayBuffer()).byteLength;
    case "node:http": {
      const agent = new Agent({ keepAlive: true, maxSockets: at });
      return (url) =>
        new Promise((resolve, reject) => {
          get(url, { agent }, (message) => {
            const chunks: Uint8Array[] = [];
            let size = 0;
            message.on("data", (chunk: Uint8Array) => {
              chunks.push(chunk);
              size += chunk.byteLength;
            });
            message.on("end", () => {
              const body = new Uint8Array(size);
              let offset = 0;
              for (const chunk of chunks) {
                body.set(chunk, offset);
                offset += chunk.byteLength;
              }
              resolve(body.byteLength);
            });
            message.on("error", reject);
          }).on("error", reject);
        });
    }
    case "undici.request": {
      const undici = await loadUndici();
      const dispatcher = new undici.Agent({ connections: at });
      return async (url) => (await (await undici.request(url, { dispatcher })).body.arrayBuffer()).byteLength;
    }
    case "undici.fetch": {
      const undici = await loadUndici();
      const dispatcher = new undici.Agent({ connections: at });
      return async (url) => (await (await undici.fetch(url, { dispatcher })).arrayBuffer()).byteLength;
    }
    case "netweir": {
      const { wireHttpClient } = await import("../../src/runtime/h1/client.ts");
      // Deno's sockets on Deno, Node's on Node, as each runtime's crawls dial.
      const { dial } = "Deno" in globalThis
        ? { dial: (await import("../../src/runtime/deno_socket.ts")).dialDeno }
        : { dial: (await import("../../src/runtime/node_socket.ts")).nodeDialer() };
      const http = wireHttpClient({ dial });
      const headers = new Headers();
      return async (url) =>
        (await (await http.fetch(new URL(url), { method: "GET", headers })).bytes(Infinity))!.byteLength;
    }
    case "netweir-h2":
    case "netweir-h1": {
      // On Node, the npm build's (NETWEIR_RUNTIME: the path of npm/dist/src/runtime/mod.js), which has its imports
      // resolved as Node needs them.
      const path = process.env.NETWEIR_RUNTIME;
      const { runtime } = await import(
        path ? pathToFileURL(path).href : "../../src/runtime/mod.ts"
      ) as typeof import("../../src/runtime/mod.ts");
      const http = runtime.httpClient({});
      const headers = new Headers();
      const http2 = name === "netweir-h2" ? "auto" : "off";
      return async (url) =>
        (await (await http.fetch(new URL(url), { method: "GET", headers, http2 })).bytes(Infinity))!.byteLength;
    }
    default:
      throw new Error(`unknown client ${name}`);
  }
}

const [name, base, pagesText, atText] = process.argv.slice(2);
const pages = Number(pagesText);
const at = Number(atText);
const fetchOne = await client(name, at);
let next = 0;
let bytes = 0;
const started = performance.now();
await Promise.all(Array.from({ length: at }, async () => {
  while (next < pages) {
    // Awaited before the sum is read: `bytes += await ...` reads `bytes` first, and the 64 loops overwrite each other.
    const got = await fetchOne(`${base}p/${next++}.html`);
    bytes += got;
  }
}));
const wall = (performance.now() - started) / 1000;
const memory = process.memoryUsage();
console.log(JSON.stringify({ pages, bytes, wall, heapTotal: memory.heapTotal, external: memory.external }));
process.exit(0);
