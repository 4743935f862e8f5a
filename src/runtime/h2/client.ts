/**
 * The crawl's HTTP client when HTTP/2 may be used: HTTP/2 where the server picks it, HTTP/1.1 where it does not.
 *
 * For an https origin not seen yet, one connection is opened offering `h2` and `http/1.1` by ALPN, and the requests
 * to that origin that come meanwhile wait for it rather than each opening its own. If the server picks h2, that
 * connection is the origin's one HTTP/2 session (session.ts) and carries all its requests as streams; if it picks
 * http/1.1, the connection goes to the HTTP/1.1 client (h1/client.ts) and the origin is remembered as HTTP/1.1, its
 * later connections opened as they were before HTTP/2 (ALPN http/1.1 only, the runtime's fastest socket). Plain
 * http stays HTTP/1.1 unless `http2: only` asks for h2c (HTTP/2 with prior knowledge, RFC 9113, 3.3).
 *
 * A request the server did not process (REFUSED_STREAM, or past a GOAWAY's last stream) is sent again on a new
 * connection, up to MAX_UNPROCESSED times.
 */
import type { LookupFunction } from "node:net";
import type { HttpClient, HttpRequest, HttpResponse } from "../types.ts";
import { type Dial, IDLE_MS, wireHttpClient } from "../h1/client.ts";
import type { WireSocket } from "../h1/wire.ts";
import { connectedWire } from "../node_socket.ts";
import { dialAlpn, type Tunnel } from "./dial.ts";
import { abortable, Http2Session, UnprocessedRequest } from "./session.ts";

/** How often a request the server did not process is sent again on a new connection. */
const MAX_UNPROCESSED = 3;
/** An idle HTTP/2 connection is kept this long: one per origin costs little, and saves a handshake. */
const H2_IDLE_MS = 30_000;
/**
 * HTTP/2 connections kept in all, past which the least recently used idle ones are closed as new ones open: a broad
 * crawl would otherwise hold a connection to every h2 site of the last H2_IDLE_MS (thousands, against the limit of
 * open files). Connections with a stream open are never closed for it.
 */
export const MAX_SESSIONS = 256;
/**
 * Origins remembered as HTTP/1.1 only (their server chose it by ALPN), the most recently added. One forgotten costs
 * nothing but an offer of h2 again on its next new connection, which the server turns down in the same handshake.
 */
export const H1_ORIGINS_KEPT = 10_000;

export interface AlpnClientOptions {
  /** Opens an HTTP/1.1 connection the way this runtime does fastest (ALPN http/1.1 only). */
  h1Dial: Dial;
  /** Through a proxy: the tunnel every connection goes through. */
  tunnel?: Tunnel;
  /** Without a tunnel: finds a host's address (the crawl's DNS cache); the system's lookup when not given. */
  lookup?: LookupFunction;
  unrefTimer?: (timer: ReturnType<typeof setInterval>) => void;
  /** Idle HTTP/1.1 connections kept in all (see HttpClientOptions.maxIdle). */
  maxIdle?: number;
  /** HTTP/2 connections kept in all; MAX_SESSIONS by default. */
  maxSessions?: number;
}

/** The connection a request was waiting for was given up by the request that opened it (its timeout or abort). */
class AbandonedConnection extends Error {
  override name = "AbandonedConnection";
}

/** What a first connection to an origin turned out to be. */
type Probed = Http2Session | "http/1.1";

export function alpnHttpClient(options: AlpnClientOptions): HttpClient {
  const maxSessions = options.maxSessions ?? MAX_SESSIONS;
  /** Connections on which the server chose http/1.1, waiting for the HTTP/1.1 client to take them. */
  const handed = new Map<string, WireSocket[]>();
  const h1 = wireHttpClient({
    dial: (url) => {
      const key = originKey(url);
      const list = handed.get(key);
      const socket = list?.pop();
      if (list?.length === 0) handed.delete(key);
      return socket ? Promise.resolve(socket) : options.h1Dial(url);
    },
    unrefTimer: options.unrefTimer,
    idleMs: IDLE_MS,
    maxIdle: options.maxIdle,
  });
  /** One HTTP/2 connection per origin, least recently used first (a use moves its key to the end). */
  const sessions = new Map<string, Http2Session>();
  const probing = new Map<string, Promise<Probed>>();
  /** Origins whose server chose http/1.1. */
  const h1Origins = new Set<string>();
  let closed = false;

  const retire = (key: string) => (session: Http2Session) => {
    if (sessions.get(key) === session) sessions.delete(key);
  };

  /**
   * Closes idle sessions, least recently used first, until the bound is kept (or every one left is in use: carrying
   * or waiting for a stream, or just opened and not used yet by the request that opened it).
   */
  const evictSessions = () => {
    if (sessions.size <= maxSessions) return;
    for (const session of [...sessions.values()]) {
      if (sessions.size <= maxSessions) break;
      // close() retires it, and retiring deletes it from the map.
      if (session.idle) session.close();
    }
  };

  const rememberH1 = (key: string) => {
    h1Origins.add(key);
    if (h1Origins.size > H1_ORIGINS_KEPT) h1Origins.delete(h1Origins.values().next().value!);
  };

  const probe = async (url: URL, key: string, only: boolean, signal?: AbortSignal): Promise<Probed> => {
    const plain = url.protocol === "http:";
    const protocols = only ? ["h2"] : ["h2", "http/1.1"];
    const { socket, protocol } = await dialAlpn(url, protocols, options.tunnel, signal, options.lookup).catch(
      (error) => {
        if (signal?.aborted) throw new AbandonedConnection("the request that opened the connection gave it up");
        // A server without h2 may end the handshake with TLS's no_application_protocol alert rather than pick.
        if (!only || !/no.?application.?protocol/i.test(String(error?.code) + String(error?.message))) throw error;
        throw new Error(`${url.host} does not speak HTTP/2 (it refused h2 by ALPN), and http2 is "only"`);
      },
    );
    if (closed) {
      socket.destroy();
      throw new Error("the HTTP client is closed");
    }
    if (plain || protocol === "h2") {
      const session = new Http2Session(`${url.protocol}//${url.host}`, socket, {
        onRetire: retire(key),
        idleMs: H2_IDLE_MS,
      });
      sessions.set(key, session);
      evictSessions();
      return session;
    }
    if (only) {
      socket.destroy();
      throw new Error(
        `${url.host} does not speak HTTP/2 (by ALPN it chose ${protocol ?? "no protocol"}), and http2 is "only"`,
      );
    }
    rememberH1(key);
    let list = handed.get(key);
    if (list === undefined) handed.set(key, list = []);
    list.push(connectedWire(socket));
    return "http/1.1";
  };

  /** The origin's HTTP/2 session, or "http/1.1" when its server does not speak HTTP/2. */
  const carrierFor = async (url: URL, key: string, only: boolean, signal?: AbortSignal): Promise<Probed> => {
    for (;;) {
      if (!only && h1Origins.has(key)) return "http/1.1";
      const live = sessions.get(key);
      if (live?.usable) {
        sessions.delete(key);
        sessions.set(key, live);
        return live;
      }
      let pending = probing.get(key);
      if (pending === undefined) {
        const opening: Promise<Probed> = probe(url, key, only, signal).finally(() => {
          if (probing.get(key) === opening) probing.delete(key);
        });
        probing.set(key, pending = opening);
      }
      try {
        return await abortable(pending, signal);
      } catch (error) {
        // Another request's timeout ended the handshake this one waited on: it opens a connection of its own.
        if (!(error instanceof AbandonedConnection) || signal?.aborted) throw error;
      }
    }
  };

  const sendH2 = async (url: URL, init: HttpRequest, only: boolean): Promise<HttpResponse> => {
    const key = originKey(url);
    for (let attempt = 0;; attempt++) {
      const carrier = await carrierFor(url, key, only, init.signal);
      if (carrier === "http/1.1") return await h1.fetch(url, init);
      try {
        return await carrier.request(url, init);
      } catch (error) {
        if (!(error instanceof UnprocessedRequest) || attempt >= MAX_UNPROCESSED || init.signal?.aborted) throw error;
        // This session takes nothing new (GOAWAY, or it failed); a later carrierFor opens the next one.
        if (carrier.usable && sessions.get(key) === carrier && carrier.active === 0) carrier.close();
      }
    }
  };

  return {
    fetch(url, init) {
      if (closed) return Promise.reject(new Error("the HTTP client is closed"));
      const mode = init.http2 ?? "auto";
      if (mode === "off" || (url.protocol === "http:" && mode !== "only")) return h1.fetch(url, init);
      return sendH2(url, init, mode === "only");
    },
    connections() {
      const counts = h1.connections!();
      for (const session of sessions.values()) {
        if (session.idle) counts.idle++;
        else counts.busy++;
      }
      return { ...counts, origins: counts.origins + sessions.size + h1Origins.size };
    },
    close() {
      closed = true;
      for (const session of [...sessions.values()]) session.close();
      sessions.clear();
      for (const list of handed.values()) for (const socket of list) socket.close();
      handed.clear();
      h1.close();
    },
  };
}

function originKey(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * The client through an HTTP proxy: https (and h2c when asked) through a CONNECT tunnel with ALPN as above, so HTTP/2
 * works through the proxy too; plain http, and everything when `http2` is off, through `viaProxy` (the runtime's
 * fetch, which sends plain http to the proxy in absolute form) as before HTTP/2 came.
 */
export function tunnelledHttpClient(
  viaProxy: HttpClient,
  tunnel: Tunnel,
  unrefTimer?: (timer: ReturnType<typeof setInterval>) => void,
): HttpClient {
  const h1Dial: Dial = async (url) => connectedWire((await dialAlpn(url, ["http/1.1"], tunnel)).socket);
  const alpn = alpnHttpClient({ h1Dial, tunnel, unrefTimer });
  return {
    fetch(url, init) {
      const mode = init.http2 ?? "auto";
      const byProxy = mode === "off" || (url.protocol === "http:" && mode !== "only");
      return byProxy ? viaProxy.fetch(url, init) : alpn.fetch(url, init);
    },
    // What the tunnelled side holds; the proxy's own pool (the runtime's fetch) cannot tell.
    connections: () => alpn.connections!(),
    close() {
      alpn.close();
      viaProxy.close();
    },
  };
}
