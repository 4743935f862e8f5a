/**
 * `deno task demo`: crawls the local copy of the book shop. It serves examples/site on a free port of 127.0.0.1,
 * runs `netweir crawl examples/books.ts -a site=http://127.0.0.1:PORT/ -O demo-items.jsonl` in a child process
 * (its log goes straight to this terminal), then says how many pages were crawled and items written, and exits with
 * the crawl's exit code.
 */
import { readFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import { extname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../src/runtime/mod.ts";

const REPO_ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUTPUT = "demo-items.jsonl";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".json": "application/json",
  ".xml": "application/xml",
};

/** A running static file server. */
export interface StaticServer {
  /** `http://127.0.0.1:PORT/`. */
  url: string;
  port: number;
  /** How many requests were answered 200 so far. */
  served(): number;
  close(): Promise<void>;
}

/** The file under `root` a URL path names (`/` and `.../` mean index.html), or undefined when it leaves `root`. */
export function fileForUrlPath(root: string, urlPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (path.includes("\0")) return undefined;
  const normal = posix.normalize(path.endsWith("/") ? `${path}index.html` : path);
  if (!normal.startsWith("/") || normal.split("/").includes("..")) return undefined;
  return join(root, normal);
}

/** Serves the files under `root` on a free port of 127.0.0.1: GET and HEAD only, 404 for anything missing. */
export async function serveDirectory(root: string): Promise<StaticServer> {
  let served = 0;
  const handler = async (request: Request): Promise<Response> => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405, headers: { allow: "GET, HEAD" } });
    }
    const file = fileForUrlPath(root, new URL(request.url).pathname);
    if (!file) return new Response("bad path\n", { status: 400 });
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = new Uint8Array(await readFile(file));
    } catch {
      return new Response("not found\n", { status: 404, headers: { "content-type": "text/plain" } });
    }
    served++;
    const type = CONTENT_TYPES[extname(file)] ?? "application/octet-stream";
    return new Response(request.method === "HEAD" ? null : body, { headers: { "content-type": type } });
  };
  const listener = await runtime.listen(handler, { hostname: "127.0.0.1", port: 0 });
  return {
    url: `http://127.0.0.1:${listener.port}/`,
    port: listener.port,
    served: () => served,
    close: () => listener.close(),
  };
}

/** Runs the command and resolves with its exit code (1 when a signal ended it or it could not start). */
function run(command: string, args: string[]): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: runtime.cwd(), stdio: ["ignore", "inherit", "inherit"] });
    child.once("error", (error) => {
      runtime.writeStderr(`demo: could not start the crawl: ${error.message}\n`);
      done(1);
    });
    child.once("close", (code) => done(code ?? 1));
  });
}

/** Non-empty lines of a JSON Lines file; 0 when it is not there. */
async function countLines(path: string): Promise<number> {
  try {
    return (await readFile(path, "utf8")).split("\n").filter((line) => line.trim() !== "").length;
  } catch {
    return 0;
  }
}

async function main(): Promise<number> {
  const server = await serveDirectory(join(REPO_ROOT, "examples", "site"));
  // Ctrl-C reaches the crawl too (same terminal); the demo waits for it to stop cleanly rather than dying first.
  const removeHandlers = [runtime.onSignal("SIGINT", () => {}), runtime.onSignal("SIGTERM", () => {})];
  try {
    runtime.writeStderr(`demo: serving examples/site at ${server.url}\n`);
    const self = runtime.selfCommand(join(REPO_ROOT, "cli.ts"));
    const spider = join(REPO_ROOT, "examples", "books.ts");
    const code = await run(self.command, [...self.args, "crawl", spider, "-a", `site=${server.url}`, "-O", OUTPUT]);
    const output = resolve(runtime.cwd(), OUTPUT);
    const items = await countLines(output);
    await runtime.writeStdout(`Crawled ${server.served()} pages; ${items} items in ${output}\n`);
    return code;
  } finally {
    for (const remove of removeHandlers) remove();
    await server.close();
  }
}

if (import.meta.main) runtime.exit(await main());
