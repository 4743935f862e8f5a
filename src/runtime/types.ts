/**
 * The runtime boundary: everything Netweir needs from Deno or Node that web standards and `node:` built-ins do not
 * give it in the same way on both. The rest of the code asks for a {@link Runtime} and never touches `Deno.*` or
 * `process.*` itself, so the npm build is a transpile rather than a rewrite.
 */

import type { StopSignalWatch, StopSignalWatchOptions } from "./stop_signal_watch.ts";
import type { HostResolver } from "./dns/resolver.ts";

/** A signal a crawl or server reacts to. */
export type StopSignal = "SIGINT" | "SIGTERM";

/** A signal Netweir sends to a process it started (the job service stopping or killing a crawl). */
export type ProcessSignal = StopSignal | "SIGKILL";

/** Options for one HTTP client; a crawl keeps one client per proxy. */
export interface HttpClientOptions {
  /** Proxy URL (`http://user:pass@host:port`); requests go through it when set. */
  proxy?: string;
  /**
   * Idle keep-alive connections kept in all (512 when not given). A broad crawl holds one or two for each host it is
   * crawling: a bound below that closes connections it is about to use again (src/fetch/idle_connections.ts).
   */
  maxIdle?: number;
  /**
   * Finds the address of each host the client connects to (the crawl's DNS cache, src/runtime/dns/); when not given,
   * the runtime looks the name up for every connection. A proxy that resolves names itself (`socks5h://`, `socks4a://`,
   * an HTTP proxy) is sent the name either way.
   */
  resolver?: HostResolver;
}

/**
 * Whether HTTP/2 is used: `auto` offers h2 and http/1.1 by ALPN on https and takes what the server picks (plain http
 * stays HTTP/1.1), `off` speaks HTTP/1.1 only, `only` speaks HTTP/2 only (ALPN h2 on https, h2c with prior knowledge
 * on plain http) and fails where the server does not.
 */
export type Http2Mode = "auto" | "off" | "only";

/** One request as the downloader sends it; redirects are never followed by the client. */
export interface HttpRequest {
  method: string;
  /** How the request may be carried; `auto` when not given. */
  http2?: Http2Mode;
  headers: Headers;
  /** Sent as it is; undefined for none. */
  body?: string;
  /** Aborts the request, and the reading of its body. */
  signal?: AbortSignal;
}

/**
 * An answer whose body has not been read yet. Leaner than a web Response on purpose: the crawler reads every body
 * whole into one buffer, so the client reads it the cheapest way its runtime has (see docs/design/engine.md, "The
 * HTTP client").
 */
export interface HttpResponse {
  readonly status: number;
  /**
   * The protocol that carried the answer, by its ALPN name (`h2`, `http/1.1`, `http/1.0`), or undefined where the
   * client cannot tell (a runtime's fetch, used through an HTTP proxy for plain http).
   */
  readonly protocol?: string;
  /** The response's headers, the caller's own to change (the downloader removes the codings it decodes). */
  readonly headers: Headers;
  /**
   * Whether the body comes exactly as the server sent it, in its Content-Encoding (node:http). False when the
   * client may have decoded some codings already (the runtimes' fetch decodes gzip and br, Node's also deflate).
   */
  readonly asSent: boolean;
  /**
   * The whole body in one buffer, or undefined once more than `limit` bytes have arrived (the rest is not read and
   * the connection is dropped). Network errors and the request's abort reject it. Call it, or `cancel`, once.
   */
  bytes(limit: number): Promise<Uint8Array | undefined>;
  /** Drops the body unread. */
  cancel(): Promise<void>;
}

/** What a client holds open now, for the per-host bounds of a broad crawl (tests, benches, the crawl's state). */
export interface ConnectionCounts {
  /** Connections kept for reuse, not carrying a request. */
  idle: number;
  /** Connections carrying a request, or opened for one that has not started yet. */
  busy: number;
  /** Entries kept per origin: idle lists, HTTP/2 sessions, origins remembered as HTTP/1.1 only. */
  origins: number;
}

/** A client bound to a connection pool (and a proxy), closed when the crawl ends. */
export interface HttpClient {
  fetch(url: URL, request: HttpRequest): Promise<HttpResponse>;
  close(): void;
  /** What it holds open now; clients that cannot tell (the runtimes' fetch, behind a proxy) leave it out. */
  connections?(): ConnectionCounts;
}

/** A running HTTP server started by {@link Runtime.listen}. */
export interface Listener {
  readonly hostname: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  hostname: string;
  port: number;
  signal?: AbortSignal;
}

/** What a runtime provides. One implementation per runtime, chosen once at start-up. */
export interface Runtime {
  readonly name: "deno" | "node";
  /** The runtime's own version, as `deno --version` or `node --version` gives it without the `v` (`2.9.6`). */
  readonly version: string;
  /**
   * Whether the module whose `import.meta` is given is the program's entry point. Deno has `import.meta.main`;
   * Node before 24 does not, so there the entry is the file `process.argv[1]` resolves to.
   */
  isMainModule(importMeta: { url: string; main?: boolean }): boolean;
  /** Command-line arguments after the script. */
  args(): string[];
  env(name: string): string | undefined;
  /** The whole environment, as a copy (for starting a process with some variables left out). */
  environment(): Record<string, string>;
  cwd(): string;
  exit(code: number): never;
  /**
   * The command that re-runs Netweir's own CLI in a fresh process: the executable and its leading arguments. On Deno
   * these carry the crawl's V8 settings (heap_flags.ts), which Deno takes only at start.
   */
  selfCommand(cliPath: string): { command: string; args: string[] };
  /**
   * Whether this process is the single binary (dist/netweir): the library is inside it, so there is no package
   * directory on disk to point a project at, and `netweir` is the command itself rather than `npx netweir`.
   */
  readonly standalone: boolean;
  /**
   * Gives this process the crawl's V8 heap settings (heap_flags.ts), leaving alone any the user set. Node takes the
   * old generation's growth in-process; the young generation's size only at start, so with `restart` (a crawl, which
   * runs long enough to pay for it) Node starts the program again in place with it. Deno reads V8 flags only at
   * start and has no such restart: there it returns false, and `deno task crawl` and selfCommand pass the flags on
   * the command line. Called by the `netweir` command, never by the library.
   */
  tuneHeap(restart?: boolean): boolean;
  /**
   * Keeps the program's compiled code for its next start: Node's compile cache (`module.enableCompileCache`, in the
   * system's temporary directory unless NODE_COMPILE_CACHE names one; NODE_DISABLE_COMPILE_CACHE=1 turns it off),
   * which takes about 10 ms off each start of `netweir crawl` on Node 22 (one-page crawls, medians of 12 alternating
   * runs: 0.29 s against 0.30), and the JavaScript Node strips out of a `.ts` module, in the user's cache folder
   * (node_type_cache.ts: a `.ts` spider's crawl starts about 80 ms sooner and 13 MB smaller when amaro, Node's
   * stripper, is not loaded). Deno keeps its own. Called by the `netweir` command,
   * never by the library: a program that imports Netweir decides that for itself.
   */
  cacheCompiledCode(): void;
  /** This process's id. */
  readonly pid: number;
  /**
   * Sends a signal to one process, by id. Returns false when there is no such process (it has exited); other
   * failures (not allowed to signal it) throw.
   */
  signalProcess(pid: number, signal: ProcessSignal): boolean;
  /**
   * Sends a signal to every process of the process group `pgid` leads: a child spawned `detached` leads a group of
   * its own, which its children join. Returns false when no process of the group is left. Windows has no process
   * groups: there SIGKILL ends the process and its descendants (`taskkill /T /F`), other signals go to it alone.
   */
  killProcessGroup(pgid: number, signal: ProcessSignal): boolean;
  /** Adds a handler for a signal; returns a function that removes it. */
  onSignal(signal: StopSignal, handler: () => void): () => void;
  /**
   * Watches SIGINT and SIGTERM from a thread of their own, which hears them while the main thread is busy in
   * synchronous code: the first is handed to the main thread, a second one (or a main thread that runs nothing for
   * `stuckMs` after a SIGTERM) ends the process by that signal (stop_signal_watch.ts).
   */
  watchStopSignals(options: StopSignalWatchOptions): StopSignalWatch;
  /**
   * Adds a handler for errors nothing caught: a promise rejected with no handler, a throw in a timer or an event
   * listener. The handler returns true when it dealt with the error; then the process carries on instead of ending
   * with the runtime's stack trace. An error no handler deals with goes on as it would without them: to the
   * program's own listeners, else the runtime ends the process. Returns a function that removes the handler.
   */
  onUncaughtError(handler: UncaughtErrorHandler): () => void;
  /** Whether standard error is a terminal (for the live progress line). */
  stderrIsTerminal(): boolean;
  writeStderr(text: string): void;
  writeStdout(text: string): Promise<void>;
  /** Resident set size of this process in bytes. */
  memoryRss(): number;
  /**
   * `bytes` as UTF-8 text, exactly as `new TextDecoder("utf-8", { fatal })` gives it (and throwing TypeError on the
   * same bytes when `fatal`). Its own entry because Node 22's TextDecoder is several times slower than Deno's on page
   * bodies (see node_utf8.ts).
   */
  decodeUtf8(bytes: Uint8Array, fatal?: boolean): string;
  /** An HTTP client, optionally through a proxy. */
  httpClient(options: HttpClientOptions): HttpClient;
  /** Serves `handler` until closed. */
  listen(handler: (request: Request) => Response | Promise<Response>, options: ListenOptions): Promise<Listener>;
  /** Reads all of standard input as a stream of bytes. */
  stdin(): ReadableStream<Uint8Array>;
  /**
   * Keeps the runtime from printing its "SQLite is an experimental feature" warning when node:sqlite is first loaded
   * (Node 22 prints one; Deno none). For a command that uses SQLite as an implementation detail the user never
   * asked about; call it before the module that imports node:sqlite is loaded.
   */
  quietSqliteWarning(): void;
  /**
   * Why this runtime would not load `path` (absolute) as an ES module, in a sentence naming `shown` and saying what to
   * change, or undefined when it will (Node: a .ts or .js file under a package.json with `"type": "commonjs"`).
   */
  moduleLoadProblem(path: string, shown: string): string | undefined;
  /**
   * After importing `path` (absolute) failed with a syntax error that says no place: the error of parsing it again,
   * which does (Node's error for a JavaScript module has none; Deno's always has one, so Deno gives undefined).
   */
  moduleSyntaxError(path: string): unknown;
  /** Starts a module worker (a Web Worker on Deno, a worker thread on Node) running the module at `url`. */
  startWorker(url: URL): WorkerHandle;
  /** Inside a worker started by {@link startWorker}: its channel to the thread that started it. */
  workerChannel(): WorkerChannel;
}

/** Sees an error nothing caught; returns true when it dealt with it (see {@link Runtime.onUncaughtError}). */
export type UncaughtErrorHandler = (error: unknown, kind: "rejection" | "exception") => boolean;

/** A worker as the thread that started it sees it. */
export interface WorkerHandle {
  post(message: unknown): void;
  onMessage(handler: (message: unknown) => void): void;
  /** Called once, when the worker dies by itself (an uncaught error, or its end), not when it is terminated. */
  onExit(handler: (error: Error) => void): void;
  terminate(): void;
}

/** A worker's side of the channel. */
export interface WorkerChannel {
  post(message: unknown): void;
  onMessage(handler: (message: unknown) => void): void;
  /**
   * Calls `handler` (with how, for a message) just before code in this worker ends it on purpose, where the side that
   * started it would otherwise not learn of it (Deno: `Deno.exit()` or `close()` in a worker end it without an event).
   */
  beforeSelfEnd(handler: (how: string) => void): void;
}
