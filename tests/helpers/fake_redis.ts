/**
 * A tiny fake Redis on 127.0.0.1 that says it is whatever version a test asks for: it answers INFO with
 * `redis_version:X` (and `redis_mode`), PING with PONG, and every other command with +OK. It is for the checks a
 * client makes when it connects (a Redis too old, a Sentinel), which a real redis-server of today cannot fake.
 *
 * ```ts
 * const fake = await startFakeRedis({ version: "6.0.0" });
 * try {
 *   // connect to fake.url
 * } finally {
 *   await fake.close();
 * }
 * ```
 */
import { Buffer } from "node:buffer";
import { createServer, type Socket } from "node:net";
import { parseReply, type RespError, type RespValue } from "./resp.ts";

export interface FakeRedisOptions {
  /** What INFO says in redis_version (default "6.0.0"). */
  version?: string;
  /** What INFO says in redis_mode (default "standalone"). */
  mode?: string;
}

/** A running fake server. */
export interface FakeRedis {
  /** `redis://127.0.0.1:PORT/0`. */
  readonly url: string;
  readonly port: number;
  /** Every command received so far, as its arguments. */
  readonly commands: string[][];
  close(): Promise<void>;
}

function bulk(text: string): string {
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/** Starts the fake on a free port of 127.0.0.1. */
export function startFakeRedis(options: FakeRedisOptions = {}): Promise<FakeRedis> {
  const version = options.version ?? "6.0.0";
  const mode = options.mode ?? "standalone";
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  const info = `# Server\r\nredis_version:${version}\r\nredis_mode:${mode}\r\nprocess_id:1\r\n`;

  const answer = (args: string[]): string => {
    switch (args[0]?.toUpperCase()) {
      case "INFO":
        return bulk(info);
      case "PING":
        return "+PONG\r\n";
      default:
        return "+OK\r\n";
    }
  };

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // Commands arrive as RESP arrays of bulk strings, the same shape as a reply; several may come at once.
      for (;;) {
        let parsed: { value: RespValue | RespError; next: number } | undefined;
        try {
          parsed = parseReply(received);
        } catch {
          socket.destroy();
          return;
        }
        if (!parsed) return;
        received = received.subarray(parsed.next);
        const args = Array.isArray(parsed.value) ? parsed.value.map(String) : [String(parsed.value)];
        commands.push(args);
        socket.write(answer(args));
      }
    });
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        url: `redis://127.0.0.1:${port}/0`,
        port,
        commands,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
