/**
 * Node's TCP and TLS sockets for the HTTP/1.1 client (src/runtime/h1/client.ts), as pull reads. The sockets read into
 * one buffer (net's `onread`: no new Buffer for every read), shared by all the sockets of one client: Node runs a
 * socket's read callback to its end before the next read of any socket, and the callback copies the bytes out, so
 * 64 KB serve every connection of the pool instead of 64 KB each. The bytes go straight into the reader's buffer when
 * a read is waiting, which is the usual case: the client asks for the next bytes before they come. Bytes no read waits for are queued (copied out, since the socket's buffer is reused), and the socket pauses
 * when more than QUEUE_LIMIT bytes wait, so a fast server cannot fill memory ahead of a slow reader.
 */
import { connect, type Socket } from "node:net";
import { connect as connectTls, type ConnectionOptions } from "node:tls";
import type { WireSocket } from "./h1/wire.ts";

const QUEUE_LIMIT = 1024 * 1024;
const READ_BUFFER = 64 * 1024;

interface WaitingRead {
  into: Uint8Array;
  resolve: (count: number | null) => void;
  reject: (error: Error) => void;
}

/** A dial for one client: its sockets share one read buffer (see above). */
export function nodeDialer(): (url: URL) => Promise<WireSocket> {
  const buffer = new Uint8Array(READ_BUFFER);
  return (url) => dialNode(url, buffer);
}

/** Connects to `url`'s host and port, reading into `buffer` (the client's, or one of its own). */
export function dialNode(url: URL, buffer = new Uint8Array(READ_BUFFER)): Promise<WireSocket> {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const tls = url.protocol === "https:";
  const port = Number(url.port || (tls ? 443 : 80));
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failure: Error | undefined;
  let waiting: WaitingRead | undefined;

  /** Bytes the socket read: into the waiting read first, the rest queued. False pauses the socket. */
  const onRead = (count: number, buffer: Uint8Array): boolean => {
    let used = 0;
    if (waiting !== undefined && queue.length === 0) {
      const read = waiting;
      waiting = undefined;
      used = Math.min(count, read.into.byteLength);
      read.into.set(used === buffer.byteLength ? buffer : buffer.subarray(0, used));
      read.resolve(used);
    }
    if (used < count) {
      queue.push(buffer.slice(used, count));
      queued += count - used;
    }
    return queued <= QUEUE_LIMIT;
  };
  const settleWaiting = () => {
    const read = waiting;
    if (read === undefined) return;
    waiting = undefined;
    if (failure) read.reject(failure);
    else read.resolve(null);
  };

  const onread = { buffer, callback: onRead };
  // tls.connect takes `onread` too (it is net's, passed down), but its types do not say so.
  const socket: Socket = tls
    ? connectTls(
      {
        host,
        port,
        servername: /^[\d.]+$|:/.test(host) ? undefined : host,
        ALPNProtocols: ["http/1.1"],
        onread,
      } as ConnectionOptions,
    )
    : connect({ host, port, onread });
  socket.setNoDelay(true);
  socket.on("end", () => {
    ended = true;
    settleWaiting();
  });
  socket.on("close", () => {
    ended = true;
    settleWaiting();
  });

  const wire: WireSocket = {
    read(into) {
      if (queue.length > 0) {
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
        return Promise.resolve(count);
      }
      if (failure) return Promise.reject(failure);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve, reject) => waiting = { into, resolve, reject });
    },
    write(bytes) {
      if (failure) return Promise.reject(failure);
      // Nearly every write (a request's head) goes to the kernel at once or into the socket's buffer under its
      // high-water mark: done, without the callback, promise and tick of Node's own that waiting for it costs (some
      // 12 µs a request). Should it fail after all, the socket's "error" sets `failure` and the next read rejects.
      if (socket.write(bytes)) return Promise.resolve(bytes.byteLength);
      // A body over the high-water mark: its turn ends when the socket drains, or fails when the socket closes first.
      return new Promise((resolve, reject) => {
        const settle = (drained: boolean) => {
          socket.off("drain", onDrain);
          socket.off("close", onClose);
          if (drained) resolve(bytes.byteLength);
          else reject(failure ?? new Error("the connection was closed before the request was sent"));
        };
        const onDrain = () => settle(true);
        const onClose = () => settle(false);
        socket.on("drain", onDrain);
        socket.on("close", onClose);
      });
    },
    close() {
      socket.destroy();
      ended = true;
      failure ??= new Error("the connection was closed");
      settleWaiting();
    },
  };
  return new Promise((resolve, reject) => {
    socket.once(tls ? "secureConnect" : "connect", () => resolve(wire));
    socket.on("error", (error) => {
      failure = error;
      settleWaiting();
      reject(error);
    });
  });
}
