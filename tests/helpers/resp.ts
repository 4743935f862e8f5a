/**
 * A tiny Redis client for tests: one command per connection, RESP2 over node:net, no library. It is what a test
 * uses to look inside a Redis the code under test is using, so it must not share anything with that code.
 */
import { Buffer } from "node:buffer";
import { connect } from "node:net";

/** A decoded reply: simple and bulk strings are strings, integers numbers, nil null, arrays arrays. */
export type RespValue = string | number | null | RespValue[];

/** An error reply from Redis (`-ERR ...`). */
export class RespError extends Error {
  override name = "RespError";
}

/** Encodes a command as a RESP array of bulk strings. */
export function encodeCommand(args: Array<string | number>): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `offset`; undefined when the buffer does not hold all of it yet. */
export function parseReply(buffer: Buffer, offset = 0): { value: RespValue | RespError; next: number } | undefined {
  const end = buffer.indexOf("\r\n", offset);
  if (end < 0) return undefined;
  const kind = String.fromCharCode(buffer[offset]);
  const line = buffer.toString("utf8", offset + 1, end);
  const next = end + 2;
  switch (kind) {
    case "+":
      return { value: line, next };
    case "-":
      return { value: new RespError(line), next };
    case ":":
      return { value: Number(line), next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString("utf8", next, next + length), next: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: RespValue[] = [];
      let at = next;
      for (let index = 0; index < count; index++) {
        const item = parseReply(buffer, at);
        if (!item) return undefined;
        if (item.value instanceof RespError) return { value: item.value, next: item.next };
        items.push(item.value);
        at = item.next;
      }
      return { value: items, next: at };
    }
    default:
      throw new TypeError(`not a RESP reply: ${JSON.stringify(buffer.toString("utf8", offset, end))}`);
  }
}

/**
 * Sends one command to the Redis at 127.0.0.1:`port` on a fresh connection and resolves with its reply; rejects with
 * a RespError for an error reply, and with an Error when no reply comes within `timeoutMs` (a paused server).
 */
export function sendCommand(port: number, args: Array<string | number>, timeoutMs = 5000): Promise<RespValue> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`redis on port ${port} did not answer ${args[0]} in ${timeoutMs} ms`))),
      timeoutMs,
    );
    socket.on("connect", () => socket.write(encodeCommand(args)));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      let reply;
      try {
        reply = parseReply(received);
      } catch (error) {
        return settle(() => reject(error));
      }
      if (!reply) return;
      const value = reply.value;
      settle(() => value instanceof RespError ? reject(value) : resolve(value));
    });
    socket.on("error", (error) => settle(() => reject(error)));
    socket.on("close", () => settle(() => reject(new Error(`redis on port ${port} closed the connection`))));
  });
}
