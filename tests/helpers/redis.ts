/**
 * A real redis-server per test file, on a free port of 127.0.0.1, with its own temporary directory and no
 * persistence (unless asked for), so a test can stop, pause, kill and restart it to cause the faults the shared
 * queue must survive. It never uses the default port 6379: a Redis someone runs there is left alone.
 *
 * ```ts
 * const redis = await startRedis();
 * try {
 *   await redis.command("SET", "k", "v");
 * } finally {
 *   await redis.stop();
 * }
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { freeFixedPort } from "./free_port.ts";
import { type RespValue, sendCommand } from "./resp.ts";
import { sendSignal, type TestSignal } from "./signal.ts";
import { sleep } from "./wait.ts";

export type { RespValue } from "./resp.ts";

/** How {@link startRedis} runs the server. */
export interface RedisOptions {
  /**
   * Keep the data across restart(): an append-only file, fsynced after every write, in the server's directory,
   * which a restarted server reads back. Without it a restarted server is empty.
   */
  appendonly?: boolean;
  /** Also listen on a unix socket in the server's directory; its path is `socketPath`. */
  unixSocket?: boolean;
  /** More redis-server arguments, after the helper's own (a TLS port and its certificates, say). */
  args?: string[];
}

/** A running redis-server started by {@link startRedis}. */
export interface RedisServer {
  /** `redis://127.0.0.1:PORT/0`. */
  readonly url: string;
  readonly port: number;
  /** The unix socket's path when started with `unixSocket`, else undefined. */
  readonly socketPath: string | undefined;
  /** The server's process id; a new one after restart(). */
  readonly pid: number;
  /** Ends the server (SIGTERM, waiting for it to exit) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Sends a signal; for SIGKILL, SIGTERM, SIGINT and SIGQUIT also waits until the server has exited. */
  kill(signal: TestSignal): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open but nothing is answered. */
  pause(): Promise<void>;
  /** Unfreezes a paused server (SIGCONT). */
  resume(): Promise<void>;
  /**
   * Ends the server if it still runs (SIGTERM) and starts a new one on the same port: empty, or with the data it
   * had when started with `appendonly`.
   */
  restart(): Promise<void>;
  /** Runs one command on a fresh connection (a tiny RESP client for looking inside). */
  command(...args: Array<string | number>): Promise<RespValue>;
}

/**
 * How long a started or restarted redis-server may take to answer PING: a guard, not a timing. A restart that loads
 * data slowly on purpose (redis_loading_test.ts) took past 10 s on a loaded machine.
 */
const READY_WITHIN_MS = 60_000;
const TERMINATING = new Set(["SIGKILL", "SIGTERM", "SIGINT", "SIGQUIT"]);

/** The redis-server executable: $REDIS_SERVER when set, else Debian's. */
function serverPath(): string {
  return runtime.env("REDIS_SERVER") ?? "/usr/bin/redis-server";
}

/** One redis-server process and what it printed (the end of it, for error messages). */
interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  hasExited: () => boolean;
  output: () => string;
}

/** The server's unix socket, in its own directory (short enough for the 108-byte limit of socket paths). */
function socketIn(dir: string): string {
  return join(dir, "redis.sock");
}

function spawnServer(port: number, dir: string, options: RedisOptions): Running {
  const args = ["--save", "", "--port", String(port), "--bind", "127.0.0.1", "--dir", dir];
  if (options.appendonly) args.push("--appendonly", "yes", "--appendfsync", "always");
  else args.push("--appendonly", "no");
  if (options.unixSocket) args.push("--unixsocket", socketIn(dir), "--unixsocketperm", "700");
  args.push(...options.args ?? []);
  const child = spawn(serverPath(), args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Uint8Array) => output = (output + new TextDecoder().decode(chunk)).slice(-4000);
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  const done = new Promise<void>((resolve) => {
    child.once("error", (error) => {
      output += `\n${error.message}`;
      exited = true;
      resolve();
    });
    child.once("close", () => {
      exited = true;
      resolve();
    });
  });
  return { child, exited: done, hasExited: () => exited, output: () => output };
}

/** Waits until the server answers PING, and checks that it is our process that answers, not another Redis. */
async function waitReady(port: number, running: Running): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (running.hasExited()) throw new Error(`redis-server on port ${port} exited at start:\n${running.output()}`);
    try {
      if (await sendCommand(port, ["PING"], 500) === "PONG") {
        const info = String(await sendCommand(port, ["INFO", "server"], 2000));
        if (!info.includes(`process_id:${running.child.pid}\r\n`)) {
          throw new Error(`port ${port} is answered by another Redis`);
        }
        return;
      }
    } catch (error) {
      if (error instanceof Error && error.message.includes("another Redis")) throw error;
      // Not listening yet.
    }
    await sleep(20);
  }
  if (!running.hasExited()) await sendSignal(running.child.pid!, "SIGKILL");
  await running.exited;
  throw new Error(
    `redis-server on port ${port} did not answer PING within ${READY_WITHIN_MS} ms:\n${running.output()}`,
  );
}

/** Starts redis-server on a free port of 127.0.0.1 (never 6379) and waits until it answers. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-redis-"));
  let port = 0;
  let running: Running | undefined;
  // A free port can be taken between choosing it and binding it, so a failed start is tried again on another. It is
  // one the system never hands out by itself, so that it is still free when a test restarts the server on it.
  for (let attempt = 1; !running; attempt++) {
    port = await freeFixedPort();
    if (port === 6379) continue;
    const candidate = spawnServer(port, dir, options);
    try {
      await waitReady(port, candidate);
      running = candidate;
    } catch (error) {
      if (attempt >= 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  let current: Running = running;
  let stopped = false;

  // Signals go by pid (see signal.ts); a server that already exited is left alone, its pid may be reused.
  const signal = async (name: TestSignal) => {
    if (current.hasExited()) return;
    // It may exit between the check and the signal; then there is nothing left to signal.
    await sendSignal(current.child.pid!, name).catch(() => {});
  };
  const kill = async (name: TestSignal) => {
    await signal(name);
    if (!TERMINATING.has(name)) return;
    // A paused server only acts on SIGTERM once it runs again.
    if (name !== "SIGKILL") await signal("SIGCONT");
    await current.exited;
  };

  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    socketPath: options.unixSocket ? socketIn(dir) : undefined,
    get pid() {
      return current.child.pid ?? -1;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await kill("SIGTERM");
      await rm(dir, { recursive: true, force: true });
    },
    kill,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    async restart() {
      if (stopped) throw new Error("redis-server was stopped; start a new one");
      await kill("SIGTERM");
      await mkdir(dir, { recursive: true });
      const next = spawnServer(port, dir, options);
      current = next;
      await waitReady(port, next);
    },
    command: (...args) => sendCommand(port, args),
  };
}

/** Runs `body` with a redis-server of its own, stopped however `body` ends. */
export async function withRedis(body: (redis: RedisServer) => Promise<void>): Promise<void> {
  const redis = await startRedis();
  try {
    await body(redis);
  } finally {
    await redis.stop();
  }
}
