/**
 * The HTTP clients side by side: the runtime's `fetch`, `node:http`, undici (`request` and `fetch`) and Netweir's own
 * HTTP/1.1 client, on Deno and on Node 22, each doing the same fetches of an 11 KB page from nginx on 127.0.0.1, AT at
 * once, in a process of its own (scripts/bench/http_client_loop.ts) so that its peak RSS is its own. Prints pages/s, CPU seconds and peak RSS
 * (GNU time); asserts nothing. docs/design/engine.md keeps the table and what was chosen from it.
 *
 *   deno run -A scripts/test_setup.ts && deno run -A scripts/bench/http_clients.ts [PAGES=21000] [AT=64] [ROUNDS=1]
 *
 * FLAGS_DENO / FLAGS_NODE (environment) add V8 flags to every run of that runtime, to see what a flag is worth.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CACHE, NODE22 } from "../test_setup.ts";
import { serveDirectory } from "./static_server.ts";
import { timed } from "./timed.ts";

const [pages = 21_000, at = 64, rounds = 1] = Deno.args.map(Number);
const LOOP = fileURLToPath(new URL("./http_client_loop.ts", import.meta.url));
const UNDICI = join(CACHE, "npm-deps", "node_modules", "undici", "index.js");
const CLIENTS = ["fetch", "node:http", "undici.request", "undici.fetch", "netweir"];
const PAGE_BYTES = 11 * 1024;

/** An HTML page of about PAGE_BYTES: a list of links and text, like a shop page. */
function page(n: number): string {
  const links = Array.from({ length: 24 }, (_, i) => `<li><a href="${(n * 31 + i) % pages}.html">item ${i}</a></li>`);
  const head = `<!DOCTYPE html><html><head><title>page ${n}</title></head><body><ul>${links.join("\n")}</ul><p>`;
  const tail = "</p></body></html>\n";
  return head +
    "lorem ipsum dolor sit amet ".repeat(Math.ceil(PAGE_BYTES / 27)).slice(0, PAGE_BYTES - head.length - tail.length) +
    tail;
}

const work = await mkdtemp(join(tmpdir(), "netweir-bench-clients-"));
const site = join(work, "site");
await mkdir(join(site, "p"), { recursive: true });
for (let n = 0; n < pages; n++) await writeFile(join(site, "p", `${n}.html`), page(n));
const server = await serveDirectory(site, work);
try {
  const flags = (name: string) => (Deno.env.get(name) ?? "").split(" ").filter(Boolean);
  const runtimes = [
    // Deno takes undici from the import map; Node from the test set-up's install of the package's dependencies.
    {
      name: "Deno",
      command: Deno.execPath(),
      args: ["run", "-A", ...flags("FLAGS_DENO").map((f) => `--v8-flags=${f}`)],
      env: {} as Record<string, string>,
    },
    { name: "Node 22", command: NODE22, args: flags("FLAGS_NODE"), env: { UNDICI } },
  ];
  console.log(
    `${pages.toLocaleString("en-US")} pages of ${PAGE_BYTES / 1024} KB from nginx at ${server.url}, ${at} at once`,
  );
  console.log("runtime  client          pages/s  CPU s  peak RSS");
  for (let round = 0; round < rounds; round++) {
    for (const runtime of runtimes) {
      for (const client of CLIENTS) {
        const ran = await timed(
          runtime.command,
          [...runtime.args, LOOP, client, server.url, String(pages), String(at)],
          {
            env: { ...Deno.env.toObject(), ...runtime.env },
          },
        );
        if (ran.code !== 0) {
          console.log(`${runtime.name.padEnd(8)} ${client.padEnd(15)} failed: ${ran.stderr.trim().split("\n")[0]}`);
          continue;
        }
        const result = JSON.parse(ran.stdout.trim().split("\n").pop()!);
        console.log(
          `${runtime.name.padEnd(8)} ${client.padEnd(15)} ${(result.pages / result.wall).toFixed(0).padStart(7)} ` +
            `${ran.cpu.toFixed(1).padStart(6)} ${ran.peakMb.toFixed(0).padStart(6)} MB`,
        );
      }
    }
  }
} finally {
  await server.stop();
  await rm(work, { recursive: true, force: true });
}
