/**
 * Node's TCP and TLS sockets for the HTTP/1.1 client (src/runtime/h1/client.ts), as pull reads: the chunks Node
 * hands out as they arrive are queued and copied into the reader's buffer when it asks. Reading pauses the socket
 * when more than QUEUE_LIMIT bytes wait, so a fast server cannot fill memory ahead of a slow reader.
 */
import { connect } from "node:net";
import { connect as connectTls } from "node:tls";
import type { WireSocket } from "./h1/wire.ts";

const QUEUE_LIMIT = 1024 * 1024;

export function dialNode(url: URL): Promise<WireSocket> {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const tls = url.protocol === "https:";
  const port = Number(url.port || (tls ? 443 : 80));
  const socket = tls
    ? connectTls({ host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host, ALPNProtocols: ["http/1.1"] })
    : connect({ host, port });
  socket.setNoDelay(true);
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  socket.on("data", (chunk: Uint8Array) => {
    queue.push(chunk);
    queued += chunk.byteLength;
    if (queued > QUEUE_LIMIT) socket.pause();
    notify();
  });
  socket.on("end", () => {
    ended = true;
    notify();
  });
  socket.on("close", () => {
    ended = true;
    notify();
  });
  const wire: WireSocket = {
    async read(into) {
      while (queue.length === 0) {
        if (failure) throw failure;
        if (ended) return null;
        await new Promise<void>((resolve) => wake = resolve);
      }
      let count = 0;
      while (queue.length > 0 && count < into.byteLength) {
        const chunk = queue[0];
        const take = Math.min(chunk.byteLength, into.byteLength - count);
        into.set(take === chunk.byteLength ? chunk : chunk.subarray(0, take), count);
        count += take;
        if (take === chunk.byteLength) queue.shift();
        else queue[0] = chunk.subarray(take);
      }
      queued -= count;
      if (queued <= QUEUE_LIMIT && socket.isPaused()) socket.resume();
      return count;
    },
    write(bytes) {
      return new Promise((resolve, reject) => {
        socket.write(bytes, (error) => error ? reject(error) : resolve(bytes.byteLength));
      });
    },
    close() {
      socket.destroy();
      ended = true;
      failure ??= new Error("the connection was closed");
      notify();
    },
  };
  return new Promise((resolve, reject) => {
    socket.once(tls ? "secureConnect" : "connect", () => resolve(wire));
    socket.on("error", (error) => {
      failure = error;
      notify();
      reject(error);
    });
  });
}
