/**
 * A real Redis Sentinel set-up on 127.0.0.1: three redis-servers (a master and two replicas, each started by
 * startRedis on a free port) and three Sentinels (Debian's redis-sentinel) watching the master under the name
 * `service`, quick to act (the master is called down after a second of silence). Everything lives in temporary
 * directories and is ended by stop().
 *
 * ```ts
 * const set = await startSentinels();
 * try {
 *   const old = await set.masterPort();
 *   await (await set.master()).kill("SIGKILL");
 *   await set.waitForNewMaster(old);
 * } finally {
 *   await set.stop();
 * }
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { freeFixedPort } from "./free_port.ts";
import { type RedisServer, startRedis } from "./redis.ts";
import { sendCommand } from "./resp.ts";
import { sendSignal } from "./signal.ts";
import { waitUntil } from "./wait.ts";

/** A master, its replicas and the Sentinels watching them. */
export interface SentinelSet {
  /** The master's name in the Sentinels' configuration. */
  readonly service: string;
  /** The Sentinels' ports. */
  readonly sentinelPorts: readonly number[];
  /** The three data servers, the first being the master at the start. */
  readonly servers: readonly RedisServer[];
  /** `redis+sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/SERVICE/DB`, with a password when one is given. */
  url(db?: number, password?: string): string;
  /** The port of the master the Sentinels name now. */
  masterPort(): Promise<number>;
  /** The server the Sentinels name as master now. */
  master(): Promise<RedisServer>;
  /** Waits until the Sentinels name a master other than the server on `oldPort`, and returns its port. */
  waitForNewMaster(oldPort: number, timeoutMs?: number): Promise<number>;
  /** Ends the Sentinels and the servers, and removes their directories. */
  stop(): Promise<void>;
}

/** The redis-sentinel executable: $REDIS_SENTINEL when set, else Debian's. */
function sentinelPath(): string {
  return runtime.env("REDIS_SENTINEL") ?? "/usr/bin/redis-sentinel";
}

interface SentinelProcess {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

/** Starts one Sentinel on a free port, with its own (writable: Sentinel rewrites it) configuration file. */
async function spawnSentinel(dir: string, service: string, masterPort: number, index: number) {
  const port = await freeFixedPort();
  const config = join(dir, `sentinel-${index}.conf`);
  await writeFile(
    config,
    [
      `port ${port}`,
      "bind 127.0.0.1",
      `dir ${dir}`,
      `sentinel monitor ${service} 127.0.0.1 ${masterPort} 2`,
      `sentinel down-after-milliseconds ${service} 1000`,
      `sentinel failover-timeout ${service} 10000`,
      `sentinel parallel-syncs ${service} 2`,
      "",
    ].join("\n"),
  );
  const child = spawn(sentinelPath(), [config], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Uint8Array) => output = (output + new TextDecoder().decode(chunk)).slice(-4000);
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => {
    child.once("error", (error) => {
      output += `\n${error.message}`;
      resolve();
    });
    child.once("close", () => resolve());
  });
  const sentinel: SentinelProcess = { port, child, exited, output: () => output };
  await waitUntil(`redis-sentinel on port ${port} to answer PING`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`redis-sentinel on port ${port} exited at start:\n${output}`);
    }
    return await sendCommand(port, ["PING"], 500).catch(() => undefined) === "PONG";
  }, 10_000);
  return sentinel;
}

/** Starts the master, two replicas of it and three Sentinels, and waits until each Sentinel sees all of them. */
export async function startSentinels(options: { service?: string } = {}): Promise<SentinelSet> {
  const service = options.service ?? "netweir-test";
  const servers: RedisServer[] = [];
  const sentinels: SentinelProcess[] = [];
  const dir = await mkdtemp(join(tmpdir(), "netweir-sentinel-"));
  const stop = async () => {
    await Promise.all(sentinels.map(async (sentinel) => {
      if (sentinel.child.exitCode === null && sentinel.child.signalCode === null) {
        await sendSignal(sentinel.child.pid!, "SIGTERM").catch(() => {});
      }
      await sentinel.exited;
    }));
    await Promise.all(servers.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const master = await startRedis();
    servers.push(master);
    for (let i = 0; i < 2; i++) {
      servers.push(await startRedis({ args: ["--replicaof", "127.0.0.1", String(master.port)] }));
    }
    await waitUntil("both replicas to be in sync with the master", async () => {
      const info = String(await master.command("INFO", "replication"));
      return (info.match(/state=online/g) ?? []).length === 2;
    });
    for (let i = 0; i < 3; i++) sentinels.push(await spawnSentinel(dir, service, master.port, i));
    await waitUntil(
      "each Sentinel to know the two replicas and the two other Sentinels",
      async () => {
        for (const sentinel of sentinels) {
          const replicas = await sendCommand(sentinel.port, ["SENTINEL", "REPLICAS", service], 2000) as unknown[];
          const others = await sendCommand(sentinel.port, ["SENTINEL", "SENTINELS", service], 2000) as unknown[];
          if (replicas.length < 2 || others.length < 2) return false;
        }
        return true;
      },
      30_000,
      200,
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const masterPort = async () => {
    for (const sentinel of sentinels) {
      const answer = await sendCommand(sentinel.port, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", service], 2000)
        .catch(() => undefined);
      if (Array.isArray(answer)) return Number(answer[1]);
    }
    throw new Error("no Sentinel answered where the master is");
  };
  const hosts = sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(",");
  return {
    service,
    sentinelPorts: sentinels.map((sentinel) => sentinel.port),
    servers,
    url: (db = 0, password?: string) =>
      `redis+sentinel://${password === undefined ? "" : `:${encodeURIComponent(password)}@`}${hosts}/${service}/${db}`,
    masterPort,
    async master() {
      const port = await masterPort();
      const server = servers.find((candidate) => candidate.port === port);
      if (!server) throw new Error(`the Sentinels name port ${port}, which is none of the servers`);
      return server;
    },
    waitForNewMaster: (oldPort, timeoutMs = 60_000) =>
      waitUntil(
        "a replica to be promoted",
        async () => {
          const port = await masterPort().catch(() => oldPort);
          return port !== oldPort ? port : undefined;
        },
        timeoutMs,
        100,
      ),
    stop,
  };
}
