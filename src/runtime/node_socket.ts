/**
 * Node's TCP and TLS sockets for the HTTP/1.1 client (src/runtime/h1/client.ts), as pull reads. The sockets read into
 * one buffer (net's `onread`: no new Buffer for every read), shared by all the sockets of one client: Node runs a
 * socket's read callback to its end before the next read of any socket, and the callback copies the bytes out, so
 * 64 KB serve every connection of the pool instead of 64 KB each. The bytes go straight into the reader's buffer when
 * a read is waiting, which is the usual case: the client asks for the next bytes before they come. Bytes no read waits for are queued (copied out, since the socket's buffer is reused), and the socket pauses
 * when more than QUEUE_LIMIT bytes wait, so a fast server cannot fill memory ahead of a slow reader.
 */
import { connect, type LookupFunction, type Socket } from "node:net";
import { connect as connectTls, type ConnectionOptions } from "node:tls";
import type { WireSocket } from "./h1/wire.ts";
import type { HostResolver } from "./dns/resolver.ts";
import { netLookup } from "./dns/net_lookup.ts";
import { proxyAddress, socksConnect, unreachableProxy } from "./socks.ts";

const QUEUE_LIMIT = 1024 * 1024;
const READ_BUFFER = 64 * 1024;

interface WaitingRead {
  into: Uint8Array;
  resolve: (count: number | null) => void;
  reject: (error: Error) => void;
}

/**
 * A dial for one client: its sockets share one read buffer (see above), and find their host's address by `resolver`
 * (the crawl's DNS cache) when given, else by Node's own lookup for each connection.
 */
export function nodeDialer(resolver?: HostResolver): (url: URL) => Promise<WireSocket> {
  const buffer = new Uint8Array(READ_BUFFER);
  const lookup = resolver ? netLookup(resolver) : undefined;
  return (url) => dialNode(url, buffer, lookup);
}

/**
 * Connects to `url`'s host and port, reading into `buffer` (the client's, or one of its own), finding the address by
 * `lookup` when given. TLS sends the URL's name as SNI and checks the certificate against it, whatever the address.
 */
export function dialNode(
  url: URL,
  buffer = new Uint8Array(READ_BUFFER),
  lookup?: LookupFunction,
): Promise<WireSocket> {
  const { host, port, tls } = endpoint(url);
  // The socket reads into `buffer` and hands the count to the pull queue, made once the socket exists.
  const reads: { onRead?: Pulled["onRead"] } = {};
  const onread = { buffer, callback: (count: number, bytes: Uint8Array) => reads.onRead!(count, bytes) };
  // tls.connect takes `onread` too (it is net's, passed down), but its types do not say so.
  const socket: Socket = tls
    ? connectTls(
      { host, port, servername: serverName(host), ALPNProtocols: ["http/1.1"], onread, lookup } as ConnectionOptions,
    )
    : connect({ host, port, onread, lookup });
  socket.setNoDelay(true);
  const pulled = pull(socket);
  reads.onRead = pulled.onRead;
  return pulled.ready(tls ? "secureConnect" : "connect");
}

/**
 * A dial through the SOCKS proxy `proxy`: the handshake on a plain connection to it, then, for https, TLS over that
 * connection. These sockets read by "data" events (onread is only for a socket Node connects itself), which costs a
 * Buffer per read: a proxy is the slower path anyway.
 */
export function nodeSocksDialer(proxy: URL, resolver?: HostResolver): (url: URL) => Promise<WireSocket> {
  return async (url) => {
    const { host, port, tls } = endpoint(url);
    const address = proxyAddress(proxy);
    const raw = connect({ host: address.hostname, port: address.port });
    raw.setNoDelay(true);
    const plain = pullByEvents(raw);
    const wire = await plain.ready("connect").catch((error) => {
      throw unreachableProxy(proxy, error);
    });
    try {
      await socksConnect(wire, proxy, host, port, resolver);
    } catch (error) {
      wire.close();
      throw error;
    }
    if (!tls) return wire;
    // The handshake's replies were read to their last byte, so nothing of the target's is left in `plain`.
    plain.detach();
    // `host` too: the certificate is checked against it (Node takes "localhost" when a socket is given without one).
    const secure = connectTls({ socket: raw, host, servername: serverName(host), ALPNProtocols: ["http/1.1"] });
    return pullByEvents(secure).ready("secureConnect").catch((error) => {
      raw.destroy();
      throw error;
    });
  };
}

/** {@link pull} over a socket's "data" events. */
export function pullByEvents(socket: Socket): Pulled {
  const pulled = pull(socket);
  socket.on("data", (chunk: Uint8Array) => {
    if (!pulled.onRead(chunk.byteLength, chunk)) socket.pause();
  });
  return pulled;
}

/** A socket connected already (TLS done), read by its "data" events, as a WireSocket. */
export function connectedWire(socket: Socket): WireSocket {
  return pullByEvents(socket).wire;
}

function endpoint(url: URL): { host: string; port: number; tls: boolean } {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const tls = url.protocol === "https:";
  return { host, port: Number(url.port || (tls ? 443 : 80)), tls };
}

/** SNI takes a name, never an address. */
function serverName(host: string): string | undefined {
  return /^[\d.]+$|:/.test(host) ? undefined : host;
}

export interface Pulled {
  /** The socket as a WireSocket; for one connected already (its `ready` event has passed). */
  readonly wire: WireSocket;
  /** Bytes the socket read: into the waiting read first, the rest queued. False pauses the socket. */
  onRead(count: number, bytes: Uint8Array): boolean;
  /** The socket as a WireSocket, once it has connected (`event`), or its error. */
  ready(event: "connect" | "secureConnect"): Promise<WireSocket>;
  /** Stops listening to the socket, which goes on to another owner (TLS over it). */
  detach(): void;
}

/** Pull reads over a socket that pushes: its bytes wait for the reader in a queue, bounded by QUEUE_LIMIT. */
function pull(socket: Socket): Pulled {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failure: Error | undefined;
  let waiting: WaitingRead | undefined;

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

  const onEnd = () => {
    ended = true;
    settleWaiting();
  };
  const onError = (error: Error) => {
    failure = error;
    settleWaiting();
  };
  socket.on("end", onEnd);
  socket.on("close", onEnd);
  socket.on("error", onError);

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
  return {
    onRead,
    wire,
    ready: (event) =>
      new Promise((resolve, reject) => {
        socket.once(event, () => resolve(wire));
        socket.once("error", reject);
      }),
    detach() {
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
      socket.removeAllListeners("data");
    },
  };
}
