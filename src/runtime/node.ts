/** The Node side of the runtime boundary (Node 22 or later). */
import process from "node:process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { parentPort, Worker } from "node:worker_threads";
import { setFlagsFromString } from "node:v8";
import nodeModule from "node:module";
import { CRAWL_V8_FLAGS, flagsNotGiven, v8FlagName } from "./heap_flags.ts";
import { alpnHttpClient, tunnelledHttpClient } from "./h2/client.ts";
import { connectTunnel, socksTunnel } from "./h2/dial.ts";
import { nodeDialer, nodeSocksDialer } from "./node_socket.ts";
import { netLookup } from "./dns/net_lookup.ts";
import { isSocksProxy } from "./socks.ts";
import { cacheStrippedTypeScript } from "./node_type_cache.ts";
import { dropWarnings } from "./node_warnings.ts";
import { nodeUncaughtErrors } from "./node_uncaught.ts";
import { decodeUtf8OnNode } from "./node_utf8.ts";
import { fromWebResponse } from "./web_response.ts";
import { commonJsProblem } from "./module_type.ts";
import { nodeModuleSyntaxError } from "./node_syntax.ts";
import { processSignals } from "./signals.ts";
import { nodeWatchHost } from "./node_signal_watch.ts";
import { nodeWorkerHandle } from "./node_worker_handle.ts";
import { watchStopSignals } from "./stop_signal_watch.ts";
import type {
  HttpClient,
  HttpClientOptions,
  Listener,
  ListenOptions,
  ProcessSignal,
  Runtime,
  StopSignal,
} from "./types.ts";
import { importPackage } from "./optional_module.ts";

/** Whether this process is a single executable application: the netweir binary that scripts/build_binary.ts makes. */
/** The binary's own assets, when this process is the single binary. */
interface SingleExecutable {
  getAsset(name: string, encoding: "utf8"): string;
}

function singleExecutable(): SingleExecutable | undefined {
  const sea = process.getBuiltinModule?.("node:sea") as (SingleExecutable & { isSea?: () => boolean }) | undefined;
  return sea?.isSea?.() ? sea : undefined;
}

function isSingleExecutable(): boolean {
  return singleExecutable() !== undefined;
}

/**
 * A worker thread in the binary: its module is not a file but a bundle among the binary's assets, started by a boot
 * script (also an asset) that runs it the way the binary runs its own. Both are written by scripts/build_binary.ts.
 */
function startBundledWorker(sea: SingleExecutable): Worker {
  return new Worker(sea.getAsset("worker_boot.cjs", "utf8"), {
    eval: true,
    workerData: { source: sea.getAsset("worker.cjs", "utf8") },
  });
}

/**
 * Direct requests go through Netweir's own client (h2/client.ts): HTTP/2 on node:http2 where an https site picks it
 * by ALPN, else the HTTP/1.1 client over node:net and node:tls sockets (h1/client.ts: about half the CPU of node:http
 * for the same pages, and a third of Node's fetch; docs/design/engine.md, "The HTTP client"). Through a SOCKS proxy
 * the same client over the tunnel the proxy opens (socks.ts); through an HTTP proxy, https by a CONNECT tunnel
 * (h2/dial.ts) and plain http by undici's ProxyAgent.
 */
function httpClient(options: HttpClientOptions): HttpClient {
  const unrefTimer = (timer: ReturnType<typeof setInterval>) => timer.unref();
  const { resolver, maxIdle } = options;
  if (!options.proxy) {
    const lookup = resolver ? netLookup(resolver) : undefined;
    return alpnHttpClient({ h1Dial: nodeDialer(resolver), lookup, unrefTimer, maxIdle });
  }
  const proxyUrl = new URL(options.proxy);
  if (isSocksProxy(options.proxy)) {
    return alpnHttpClient({
      h1Dial: nodeSocksDialer(proxyUrl, resolver),
      tunnel: socksTunnel(proxyUrl, resolver),
      unrefTimer,
      maxIdle,
    });
  }
  // node:http has no proxy support; undici (the library behind Node's fetch) does, so it is loaded only when a
  // proxy is asked for.
  const proxy = options.proxy;
  const loaded = importPackage<typeof import("undici")>("npm:undici@7.30.2").then((undici) => ({
    undici,
    agent: new undici.ProxyAgent(proxy),
  }));
  const viaUndici: HttpClient = {
    async fetch(url, init) {
      const { undici, agent } = await loaded;
      // deno-lint-ignore no-explicit-any
      const response = await undici.fetch(url, { ...init, redirect: "manual", dispatcher: agent } as any);
      return fromWebResponse(response as unknown as Response);
    },
    close() {
      loaded.then(({ agent }) => agent.close()).catch(() => {});
    },
  };
  return proxyUrl.protocol === "http:"
    ? tunnelledHttpClient(viaUndici, connectTunnel(proxyUrl), unrefTimer)
    : viaUndici;
}

/** The flags the user started this Node with: its command line's, and NODE_OPTIONS'. */
function givenNodeFlags(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].filter((arg) => arg !== "");
}

/** Node's own number of V8 helper threads (`--v8-pool-size`), whatever the machine. */
const NODE_V8_POOL_SIZE = 4;

/**
 * Node options (not V8's) a crawl runs better with, where this Node has them and the user did not choose otherwise.
 * `--experimental-async-context-frame` (Node 22.7 and later; the default from Node 24) keeps AsyncLocalStorage's store
 * in each async context instead of in promise hooks: the page scope of src/engine/page_scope.ts otherwise puts a hook
 * on every promise of the crawl (5 to 9 % of a crawl's CPU on the link shop).
 * `--v8-pool-size` at the number of CPUs where there are fewer than Node's 4: V8's helpers (the collector's parallel
 * and concurrent work) are woken for every young-generation collection, and more of them than cores only take turns
 * with the crawl. On 2 vCPUs, 2 instead of 4 made the link shop's crawl about 5 % faster and 4 MB smaller (Deno runs
 * as many as there are cores).
 */
function crawlNodeFlags(): string[] {
  const given = givenNodeFlags();
  const flags: string[] = [];
  const frame = "--experimental-async-context-frame";
  const frameGiven = given.some((arg) => /^--(no-)?(experimental-)?async-context-frame$/.test(arg));
  if (!frameGiven && process.allowedNodeEnvironmentFlags.has(frame)) flags.push(frame);
  const cpus = availableParallelism();
  if (cpus < NODE_V8_POOL_SIZE && !given.some((arg) => /^--v8-pool-size(=|$)/.test(arg))) {
    flags.push(`--v8-pool-size=${cpus}`);
  }
  return flags;
}

/** Node's process.execve (22.15 and later, not on Windows): this process replaced by another program, same pid. */
type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => never;

/**
 * The crawl's V8 settings, each unless the user set that flag. V8 reads the old generation's growth at each
 * collection, so that one is set in-process; the young generation's size only when the heap is set up, so for that
 * one a long-running command (`restart`) has Node start this program again with it, in place (process.execve: the
 * same process, pid and open files, the first image gone, nothing run yet but module loading). Where execve is
 * missing (Node before 22.15, Windows) or the program is the single executable (which takes no Node options), the
 * process carries on with the growth setting alone.
 */
function tuneHeap(restart = false): boolean {
  const missing = flagsNotGiven(CRAWL_V8_FLAGS.node, givenNodeFlags());
  const execve = (process as unknown as { execve?: Execve }).execve;
  const atStartOnly = missing.filter((flag) => v8FlagName(flag) === "max-semi-space-size");
  if (
    restart && atStartOnly.length > 0 && typeof execve === "function" && process.platform !== "win32" &&
    !isSingleExecutable()
  ) {
    const args = [...process.execArgv, ...crawlNodeFlags(), ...missing, ...process.argv.slice(1)];
    execve(process.execPath, [process.execPath, ...args], process.env);
  }
  for (const flag of missing) if (!atStartOnly.includes(flag)) setFlagsFromString(flag);
  return true;
}

/** The command that runs cli.ts again: Node with the crawl's V8 flags, or the single executable as it is. */
function selfCommand(cliPath: string): { command: string; args: string[] } {
  // A single executable takes its arguments as the program's, not as Node's options.
  if (isSingleExecutable()) return { command: process.execPath, args: [] };
  const flags = [...crawlNodeFlags(), ...flagsNotGiven(CRAWL_V8_FLAGS.node, givenNodeFlags())];
  return { command: process.execPath, args: [...flags, cliPath] };
}

function isMainModule(importMeta: { url: string; main?: boolean }): boolean {
  if (typeof importMeta.main === "boolean") return importMeta.main; // Node 24.2 and later
  const entry = process.argv[1];
  if (!entry || !importMeta.url.startsWith("file:")) return false;
  try {
    // realpath on both sides: npm runs a package's bin through a symlink in node_modules/.bin.
    return realpathSync(resolve(entry)) === realpathSync(fileURLToPath(importMeta.url));
  } catch {
    return false;
  }
}

function toRequest(req: IncomingMessage, hostname: string, port: number): Request {
  const url = `http://${req.headers.host ?? `${hostname}:${port}`}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? Readable.toWeb(req) as ReadableStream<Uint8Array> : undefined,
    duplex: "half",
  } as RequestInit);
}

async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === "set-cookie" ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, headers);
  if (response.body) {
    for await (const chunk of response.body) res.write(chunk);
  }
  res.end();
}

function listen(
  handler: (request: Request) => Response | Promise<Response>,
  options: ListenOptions,
): Promise<Listener> {
  // Required here, not imported: node:http imported as a module loads undici (its ESM face reads every export),
  // about 35 ms and 13 MB that a crawl, which never listens, has no use for.
  const { createServer } = nodeModule.createRequire(import.meta.url)("node:http") as typeof import("node:http");
  const server = createServer((req, res) => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    Promise.resolve(handler(toRequest(req, options.hostname, port)))
      .then((response) => sendResponse(res, response))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      const close = () =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
      options.signal?.addEventListener("abort", () => void close());
      resolve({ hostname: options.hostname, port, close });
    });
  });
}

/** process.kill, with "no such process" as false (a negative id signals a process group). */
function kill(pid: number, signal: ProcessSignal): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ESRCH") return false;
    throw error;
  }
}

const { signalProcess, killProcessGroup } = processSignals({
  kill,
  windows: process.platform === "win32",
  killTree: (pid) => spawnSync("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore" }).status === 0,
});

function onSignal(signal: StopSignal, handler: () => void): () => void {
  process.on(signal, handler);
  return () => void process.off(signal, handler);
}

export const nodeRuntime: Runtime = {
  name: "node",
  version: process.versions.node,
  isMainModule,
  args: () => process.argv.slice(2),
  env: (name) => process.env[name],
  environment: () =>
    Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  cwd: () => process.cwd(),
  exit: (code) => process.exit(code),
  // In the single binary (deno task build:binary) the executable is the whole program: it takes no script path.
  selfCommand,
  get standalone() {
    return isSingleExecutable();
  },
  tuneHeap,
  cacheCompiledCode() {
    // Node 22.1 and later; a single executable carries its code cache itself, and strips TypeScript with its own hooks.
    if (isSingleExecutable()) return;
    (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
    cacheStrippedTypeScript(process.env, givenNodeFlags());
  },
  pid: process.pid,
  signalProcess,
  killProcessGroup,
  onSignal,
  watchStopSignals: (options) => watchStopSignals(nodeWatchHost(onSignal), options),
  onUncaughtError: nodeUncaughtErrors(),
  stderrIsTerminal: () => Boolean(process.stderr.isTTY),
  writeStderr: (text) => void process.stderr.write(text),
  writeStdout: (text) =>
    new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => error ? reject(error) : resolve())),
  memoryRss: () => process.memoryUsage.rss(),
  decodeUtf8: decodeUtf8OnNode,
  httpClient,
  listen,
  stdin: () => Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  startWorker: (url) => {
    const sea = singleExecutable();
    return nodeWorkerHandle(sea ? startBundledWorker(sea) : new Worker(url));
  },
  workerChannel: () => {
    if (!parentPort) throw new Error("not in a worker");
    const port = parentPort;
    return {
      post: (message) => port.postMessage(message),
      onMessage: (handler) => void port.on("message", handler),
      // process.exit() in a worker thread ends that thread, and its Worker emits "exit": startWorker's onExit.
      beforeSelfEnd: () => {},
    };
  },
  moduleLoadProblem: commonJsProblem,
  moduleSyntaxError: nodeModuleSyntaxError,
  quietSqliteWarning: () => {
    // Only this one, which says nothing a serve user can act on, and for the rest of the process.
    dropWarnings("SQLite is an experimental feature");
  },
};
