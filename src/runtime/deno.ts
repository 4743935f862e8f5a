/** The Deno side of the runtime boundary. */
import { alpnHttpClient, tunnelledHttpClient } from "./h2/client.ts";
import { connectTunnel, socksTunnel } from "./h2/dial.ts";
import { denoDialer, denoSocksDialer } from "./deno_socket.ts";
import { netLookup } from "./dns/net_lookup.ts";
import { isSocksProxy } from "./socks.ts";
import { fromWebResponse } from "./web_response.ts";
import { processSignals } from "./signals.ts";
import { denoWatchHost } from "./deno_signal_watch.ts";
import { denoWorkerHandle } from "./deno_worker_handle.ts";
import { watchStopSignals } from "./stop_signal_watch.ts";
import { CRAWL_V8_FLAGS, flagsNotGiven } from "./heap_flags.ts";
import type { HttpClient, HttpClientOptions, Listener, ListenOptions, ProcessSignal, Runtime } from "./types.ts";

/** Deno's TextDecoder is fast on page bodies already (3 to 5 µs for an 11 KB page): decodeUtf8 is it. */
const utf8 = new TextDecoder("utf-8");
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function proxyOption(proxy: string): Deno.Proxy {
  const url = new URL(proxy);
  const basicAuth = url.username
    ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
    : undefined;
  url.username = "";
  url.password = "";
  return { url: url.href, basicAuth };
}

/**
 * Direct requests go through Netweir's own client (h2/client.ts): HTTP/2 on node:http2 where an https site picks it
 * by ALPN, else the HTTP/1.1 client over Deno's sockets (h1/client.ts), which at 64 requests in flight held some 60 MB
 * less than Deno's fetch and took a third of its CPU, and reaches the ports fetch refuses. Through a SOCKS proxy the
 * same client over the tunnel the proxy opens (socks.ts); through an HTTP proxy, https by a CONNECT tunnel
 * (h2/dial.ts) and plain http by Deno's fetch with the proxy set on its client (docs/design/engine.md, "HTTP/2").
 */
function httpClient(options: HttpClientOptions): HttpClient {
  const unrefTimer = (timer: ReturnType<typeof setInterval>) => Deno.unrefTimer(timer as unknown as number);
  const { resolver, maxIdle } = options;
  if (!options.proxy) {
    const lookup = resolver ? netLookup(resolver) : undefined;
    return alpnHttpClient({ h1Dial: denoDialer(resolver), lookup, unrefTimer, maxIdle });
  }
  const proxy = new URL(options.proxy);
  if (isSocksProxy(options.proxy)) {
    return alpnHttpClient({
      h1Dial: denoSocksDialer(proxy, resolver),
      tunnel: socksTunnel(proxy, resolver),
      unrefTimer,
      maxIdle,
    });
  }
  const client = Deno.createHttpClient({ proxy: proxyOption(options.proxy) });
  const viaFetch: HttpClient = {
    fetch: async (url, init) =>
      fromWebResponse(await fetch(url, { ...init, redirect: "manual", client } as RequestInit)),
    close: () => client.close(),
  };
  return proxy.protocol === "http:" ? tunnelledHttpClient(viaFetch, connectTunnel(proxy), unrefTimer) : viaFetch;
}

async function listen(
  handler: (request: Request) => Response | Promise<Response>,
  options: ListenOptions,
): Promise<Listener> {
  const { promise, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: options.signal,
    onListen: (addr) => resolve(addr as Deno.NetAddr),
  }, handler);
  const addr = await promise;
  return {
    hostname: addr.hostname,
    port: addr.port,
    close: async () => {
      await server.shutdown().catch(() => {});
    },
  };
}

/** Deno.kill, with "no such process" as false (a negative id signals a process group). */
function kill(pid: number, signal: ProcessSignal): boolean {
  try {
    Deno.kill(pid, signal);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

const { signalProcess, killProcessGroup } = processSignals({
  kill,
  windows: Deno.build.os === "windows",
  killTree: (pid) =>
    new Deno.Command("taskkill", { args: ["/pid", String(pid), "/T", "/F"], stdout: "null", stderr: "null" })
      .outputSync().success,
});

/** `--v8-flags=` with the crawl's V8 settings, but those DENO_V8_FLAGS sets already; none when it sets them all. */
function v8FlagArgs(): string[] {
  const given = (Deno.env.get("DENO_V8_FLAGS") ?? "").split(",").filter((flag) => flag !== "");
  const flags = flagsNotGiven(CRAWL_V8_FLAGS.deno, given);
  return flags.length === 0 ? [] : [`--v8-flags=${flags.join(",")}`];
}

export const denoRuntime: Runtime = {
  name: "deno",
  version: Deno.version.deno,
  isMainModule: (importMeta) => importMeta.main === true,
  args: () => [...Deno.args],
  env: (name) => Deno.env.get(name),
  environment: () => Deno.env.toObject(),
  cwd: () => Deno.cwd(),
  exit: (code) => Deno.exit(code),
  standalone: false,
  selfCommand: (cliPath) => ({ command: Deno.execPath(), args: ["run", "-A", "--quiet", ...v8FlagArgs(), cliPath] }),
  // Deno takes V8 flags only at start (node:v8's setFlagsFromString does nothing there): see selfCommand.
  tuneHeap: (_restart?: boolean) => false,
  // Deno keeps V8's code cache of every module it runs by itself (DENO_DIR).
  cacheCompiledCode: () => {},
  pid: Deno.pid,
  signalProcess,
  killProcessGroup,
  onSignal: denoWatchHost.onSignal,
  watchStopSignals: (options) => watchStopSignals(denoWatchHost, options),
  onUncaughtError(handler) {
    // preventDefault is what keeps Deno from ending the process; without it the runtime reports the error as usual.
    const onRejection = (event: PromiseRejectionEvent) => {
      if (handler(event.reason, "rejection")) event.preventDefault();
    };
    const onError = (event: ErrorEvent) => {
      if (handler(event.error ?? new Error(event.message), "exception")) event.preventDefault();
    };
    globalThis.addEventListener("unhandledrejection", onRejection);
    globalThis.addEventListener("error", onError);
    return () => {
      globalThis.removeEventListener("unhandledrejection", onRejection);
      globalThis.removeEventListener("error", onError);
    };
  },
  stderrIsTerminal: () => Deno.stderr.isTerminal(),
  writeStderr: (text) => {
    Deno.stderr.writeSync(new TextEncoder().encode(text));
  },
  writeStdout: async (text) => {
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
  },
  memoryRss: () => Deno.memoryUsage().rss,
  decodeUtf8: (bytes, fatal = false) => (fatal ? strictUtf8 : utf8).decode(bytes),
  httpClient,
  listen,
  stdin: () => Deno.stdin.readable,
  quietSqliteWarning: () => {},
  // Deno loads .ts and .js files as modules whatever a package.json says.
  moduleLoadProblem: () => undefined,
  moduleSyntaxError: () => undefined,
  startWorker: (url) => denoWorkerHandle(new Worker(url.href, { type: "module" })),
  workerChannel: () => {
    const scope = globalThis as unknown as {
      postMessage(message: unknown): void;
      onmessage: ((event: MessageEvent) => void) | null;
    };
    return {
      post: (message) => scope.postMessage(message),
      onMessage: (handler) => scope.onmessage = (event) => handler(event.data),
      beforeSelfEnd(handler) {
        // Both end a Deno worker silently: its Worker object gets no error and no other event.
        const exit = Deno.exit;
        Deno.exit = (code?: number) => {
          handler(`Deno.exit(${code ?? ""}) was called`);
          return exit(code);
        };
        const self = globalThis as unknown as { close?: () => void };
        const close = self.close;
        if (typeof close === "function") {
          self.close = () => {
            handler("close() was called");
            close.call(globalThis);
          };
        }
      },
    };
  },
};
