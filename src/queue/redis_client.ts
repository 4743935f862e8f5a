/**
 * One connection to the queue's Redis server, with Netweir's scripts defined on it. Opening it checks the server:
 * Redis 6.2 or later (Valkey reports a Redis version too), a single server or the master a Sentinel names (never a
 * Sentinel itself, nor a Cluster node). No answer is
 * awaited longer than `timeoutMs`, connecting included, so a server that hangs is found out as fast as one that
 * is gone.
 */
import { Buffer } from "node:buffer";
import type { Redis } from "ioredis";
import { QueueError } from "../errors.ts";
import { maskSecrets } from "../log.ts";
import { maskQueueUrl, type RedisTarget } from "../settings/redis_url.ts";
import { type ScriptName, SCRIPTS } from "./redis_scripts.ts";
import { connectWithin, sentinelOptions } from "./sentinel.ts";
import { importPackage } from "../runtime/optional_module.ts";

/** A script argument: text, a number, or raw bytes (fingerprints). */
export type ScriptArg = string | number | Uint8Array;

const MIN_VERSION = [6, 2];

/**
 * The commands the queue's scripts and `netweir queue clear` use. A server may have renamed or disabled some
 * (`rename-command`) and still say 6.2: a script would then fail at that command, so the server is refused at once.
 */
const COMMANDS_USED = [
  "eval",
  "evalsha",
  "lmove",
  "lpop",
  "lpush",
  "rpush",
  "llen",
  "lrange",
  "lrem",
  "hset",
  "hget",
  "hmget",
  "hdel",
  "hexists",
  "hincrby",
  "hkeys",
  "hvals",
  "hlen",
  "zadd",
  "zrem",
  "zrange",
  "zrevrange",
  "zrangebyscore",
  "zscore",
  "exists",
  "rename",
  "type",
  "time",
  "del",
  "set",
  "scan",
];

/** Reconnects at most a second apart, forever: giving up is the queue's decision, not the client's. */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1000);

export class RedisConnection {
  readonly #redis: Redis;
  readonly #label: string;

  private constructor(redis: Redis, label: string) {
    this.#redis = redis;
    this.#label = label;
  }

  /**
   * Connects and checks the server. Throws QueueError when it cannot be reached or used. `warn` hears of things
   * worth a line that do not stop the connection (a password the server does not need).
   */
  static async open(
    target: RedisTarget,
    url: string,
    timeoutMs: number,
    warn: (message: string) => void = () => {},
  ): Promise<RedisConnection> {
    // Loaded on first use: a crawl without a shared queue never pays for the Redis client at start-up.
    const { Redis } = await importPackage<typeof import("ioredis")>("npm:ioredis@5.9.2");
    const tls = target.tls ? await tlsOptions(target, maskQueueUrl(url)) : undefined;
    const redis = new Redis({
      ...(tls ? { tls } : {}),
      ...(target.sentinel ? sentinelOptions(target.sentinel, timeoutMs) : { host: target.host, port: target.port }),
      path: target.path,
      db: target.db,
      username: target.username,
      password: target.password,
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy,
      enableReadyCheck: false,
      // ioredis logs connection errors itself unless someone listens; the queue reports them its own way.
      showFriendlyErrorStack: false,
    });
    // ioredis reports a refused login as an error event and then only says it is not connected; keep the event
    // to say why.
    let lastError: unknown;
    redis.on("error", (error) => lastError = error);
    for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: 0, lua });
    const connection = new RedisConnection(redis, maskQueueUrl(url));
    quietUnneededPassword(redis, () => warn(`${connection.#label} needs no password; the one given is not used`));
    keepStreamErrorsHandled(redis);
    try {
      await (target.sentinel ? connectWithin(redis, target.sentinel, connection.#label, timeoutMs) : redis.connect());
      await connection.#checkServer();
      await connection.#checkDatabase(target.db);
    } catch (error) {
      redis.disconnect();
      if (error instanceof QueueError) throw error;
      const cause = lastError ?? error;
      if (/Protocol error/i.test((cause as Error)?.message ?? "")) {
        throw new QueueError(`${connection.#label} did not answer as a Redis server does (is it one?)`, { cause });
      }
      throw new QueueError(`cannot reach the queue at ${connection.#label}: ${describe(cause)}`, { cause });
    }
    return connection;
  }

  async #checkServer(): Promise<void> {
    const info = await this.#redis.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    const mode = /redis_mode:(\w+)/.exec(info)?.[1];
    if (mode === "sentinel") throw new QueueError(`${this.#label} is a Redis Sentinel; give the server itself`);
    if (mode === "cluster") throw new QueueError(`${this.#label} is a Redis Cluster node; Cluster is not supported`);
    if (!version) throw new QueueError(`${this.#label} did not say its Redis version`);
    const [major, minor] = [Number(version[1]), Number(version[2])];
    if (major < MIN_VERSION[0] || (major === MIN_VERSION[0] && minor < MIN_VERSION[1])) {
      throw new QueueError(`${this.#label} runs Redis ${major}.${minor}; the queue needs 6.2 or later`);
    }
    // A server (or a proxy in front of one) that does not list its commands is taken at its word.
    const known = await this.#redis.call("COMMAND", "INFO", ...COMMANDS_USED).catch(() => undefined);
    if (!Array.isArray(known)) return;
    const missing = COMMANDS_USED.filter((_, i) => !known[i]).map((name) => name.toUpperCase());
    if (missing.length > 0) {
      throw new QueueError(
        `${this.#label} lacks ${missing.join(", ")} (renamed or disabled?); the queue needs ${
          missing.length === 1 ? "it" : "them"
        }`,
      );
    }
  }

  /**
   * Selects the database again and waits for the answer. ioredis selects it on connecting, but a database that does
   * not exist only gets an `error` event there, and the client carries on in database 0: every key would then be
   * read and written in the wrong database. Asked here, before the queue touches any key, the refusal is an error.
   */
  async #checkDatabase(db: number): Promise<void> {
    try {
      await this.#redis.select(db);
    } catch (error) {
      if (!/DB index is out of range|invalid DB index/i.test((error as Error)?.message ?? "")) throw error;
      throw new QueueError(`database ${db} does not exist on ${this.#label} (see the server's "databases" setting)`, {
        cause: error,
      });
    }
  }

  /**
   * Runs one of the queue's scripts. Rejects on any failure; retrying is the caller's business. Byte arguments are
   * sent as they are, not copied, so the caller must leave them unchanged until the promise settles.
   */
  async script(name: ScriptName, args: ScriptArg[]): Promise<unknown> {
    // deno-lint-ignore no-explicit-any
    const command = (this.#redis as any)[name] as (...args: unknown[]) => Promise<unknown>;
    // A view, not Buffer.from(bytes): a million-URL push sends 130 MB of payloads, and copies of them were a third
    // of its peak memory.
    const sent = args.map((arg) =>
      arg instanceof Uint8Array ? Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength) : arg
    );
    return await command.apply(this.#redis, sent);
  }

  /** The raw client, for plain commands (SCAN and DEL when clearing). */
  get client(): Redis {
    return this.#redis;
  }

  close(): void {
    this.#redis.disconnect();
  }
}

/**
 * The TLS options of a rediss:// connection: the server's certificate checked against the CA file given, or the
 * system's CAs, and its name against the host (the TLS library's default, never turned off); a client certificate
 * when one is given. A file that cannot be read is a QueueError naming it.
 */
async function tlsOptions(target: RedisTarget, label: string): Promise<Record<string, unknown>> {
  const { readFile } = await import("node:fs/promises");
  const read = async (what: string, path: string | undefined) => {
    if (path === undefined) return undefined;
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      throw new QueueError(`cannot read the ${what} file ${path} of ${label}: ${(error as Error).message}`);
    }
  };
  const [ca, cert, key] = [
    await read("ca", target.tls?.ca),
    await read("cert", target.tls?.cert),
    await read("key", target.tls?.key),
  ];
  return {
    rejectUnauthorized: true,
    // SNI takes a host name, never an address; the certificate is still checked against an address.
    ...(target.host && !/^[\d.]+$|:/.test(target.host) ? { servername: target.host } : {}),
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
  };
}

/**
 * ioredis listens for a socket's first `error` only (`once`). A socket that fails twice (a TLS server closing on a
 * client without a certificate gives a reset and then EPIPE on the write in flight) would throw the second one as an
 * uncaught error and end the process. A listener of our own on every socket the client opens keeps later errors
 * handled; the first still reaches ioredis, which reports and reconnects as usual.
 */
function keepStreamErrorsHandled(redis: Redis): void {
  const connector =
    (redis as unknown as { connector: { connect: (...args: unknown[]) => Promise<unknown> } }).connector;
  const connect = connector.connect.bind(connector);
  connector.connect = async (...args: unknown[]) => {
    const stream = await connect(...args) as { on(event: string, listener: () => void): void };
    stream.on("error", () => {});
    return stream;
  };
}

/**
 * A password sent to a server that needs none: Redis refuses the AUTH, ioredis prints its own "[WARN]" line on
 * standard error (outside Netweir's log, unprefixed) and carries on. This instance's AUTH answers such a refusal as
 * a success instead, and `onUnneeded` says so once in Netweir's words. Any other AUTH failure is left as it is.
 */
function quietUnneededPassword(redis: Redis, onUnneeded: () => void): void {
  let said = false;
  const auth = redis.auth.bind(redis) as (...args: unknown[]) => Promise<unknown>;
  (redis as unknown as { auth: (...args: unknown[]) => Promise<unknown> }).auth = (...args: unknown[]) => {
    const callback = typeof args.at(-1) === "function"
      ? args.pop() as (error: Error | null, ok?: unknown) => void
      : undefined;
    const answer = auth(...args).catch((error: Error) => {
      if (!/no password is set|without any password configured/i.test(error?.message ?? "")) throw error;
      if (!said) onUnneeded();
      said = true;
      return "OK";
    });
    if (callback) answer.then((ok) => callback(null, ok), (error) => callback(error));
    return answer;
  };
}

/**
 * Whether a failure to open a connection may pass by itself (the server is down, restarting, unreachable for now)
 * rather than need someone to change something (a refused login, a database that does not exist, a server that is
 * too old or of the wrong kind).
 */
export function mayPass(error: unknown): boolean {
  const messages = errorMessages(error);
  const text = messages.join(" ");
  if (isLoading(error)) return true;
  if (/WRONGPASS|NOAUTH|NOPERM|invalid password|invalid username|DB index is out of range/i.test(text)) return false;
  // A certificate that does not check out will not start to by itself.
  if (/certificate|self[- ]signed|altnames|ERR_TLS|UNABLE_TO_VERIFY|wrong version number/i.test(text)) return false;
  return /^cannot reach the queue/.test(messages[0] ?? "");
}

/** The messages of an error and of its causes, at most five. */
function errorMessages(error: unknown): string[] {
  const messages: string[] = [];
  for (let e: unknown = error; e instanceof Error && messages.length < 5; e = e.cause) messages.push(e.message);
  return messages;
}

/** Whether an error is Redis saying it is still loading its data (after a restart): a wait, not a failure. */
export function isLoading(error: unknown): boolean {
  return errorMessages(error).some((message) => /^LOADING\b|\bLOADING Redis is loading/.test(message));
}

/** One line for an error from the client, in words a user reads (not ioredis's option names). */
export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // ioredis going round the Sentinels of a redis+sentinel:// URL; its last error is most often its own "Connection
  // is closed" for a Sentinel that refused, which says nothing more.
  if (/^All sentinels are unreachable\b/.test(message)) return "no Sentinel answered";
  // ioredis's words for a command it dropped because the connection was down (its maxRetriesPerRequest option).
  if (/Stream isn't writeable|Connection is closed|max retries per request|maxRetriesPerRequest/i.test(message)) {
    return "not connected to Redis";
  }
  if (/^Command timed out/i.test(message)) return "Redis did not answer in time";
  if (/^LOADING\b/.test(message)) return "Redis is loading its data";
  if (/Protocol error/i.test(message)) return "the server did not answer as a Redis server does";
  return maskSecrets(message.split("\n")[0]);
}
