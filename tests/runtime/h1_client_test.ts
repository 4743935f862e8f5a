/**
 * The HTTP/1.1 client over raw sockets (src/runtime/h1/), against TCP servers that write hand-crafted bytes: each
 * body framing, split at awkward places; sloppy heads servers send; which connections are kept and which are not,
 * counted on the server's side; the stale keep-alive retry; broken responses; body limits; aborts; and the request
 * as it goes on the wire. Deno's fetch and node:http are lenient and strict in their own ways, so only a server
 * that controls every byte shows what this client does with them.
 */
import assert from "node:assert/strict";
import { networkFailureKind } from "../../src/fetch/network_errors.ts";
import { type Dial, wireHttpClient } from "../../src/runtime/h1/client.ts";
import { dialDeno } from "../../src/runtime/deno_socket.ts";
import { nodeDialer } from "../../src/runtime/node_socket.ts";
import { type HttpClient, type HttpRequest, runtime } from "../../src/runtime/mod.ts";
import { freePort } from "../helpers/free_port.ts";

/** A request as the server read it. */
interface Received {
  /** The request line and headers, as Latin-1 text. */
  head: string;
  body: Uint8Array;
  /** Which accepted connection it came on, from 1. */
  connection: number;
}

/**
 * Answers one request by writing to the connection; "close" ends the connection afterwards. `hang` resolves when
 * the server is closed: a handler that awaits it never answers.
 */
type Handler = (
  conn: Deno.TcpConn,
  request: Received,
  index: number,
  hang: () => Promise<void>,
) => Promise<"close" | void>;

interface ScriptedServer {
  url: string;
  /** Connections accepted, and closed. */
  readonly connections: number;
  readonly closed: number;
  requests: Received[];
  close(): Promise<void>;
}

const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));
const latin1Text = (bytes: Uint8Array) => Array.from(bytes, (byte) => String.fromCharCode(byte)).join("");
const utf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads requests off a connection: the head up to its empty line, then a body of its Content-Length. */
class RequestReader {
  #data = new Uint8Array(0);
  constructor(readonly conn: Deno.Conn) {}

  async #more(): Promise<boolean> {
    const chunk = new Uint8Array(65536);
    const count = await this.conn.read(chunk);
    if (count === null) return false;
    const joined = new Uint8Array(this.#data.length + count);
    joined.set(this.#data);
    joined.set(chunk.subarray(0, count), this.#data.length);
    this.#data = joined;
    return true;
  }

  async next(): Promise<{ head: string; body: Uint8Array } | null> {
    let end;
    while ((end = latin1Text(this.#data).indexOf("\r\n\r\n")) < 0) if (!await this.#more()) return null;
    const head = latin1Text(this.#data.subarray(0, end));
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    while (this.#data.length < end + 4 + length) if (!await this.#more()) return null;
    const body = this.#data.slice(end + 4, end + 4 + length);
    this.#data = this.#data.slice(end + 4 + length);
    return { head, body };
  }
}

/** A server on 127.0.0.1 that reads each request and lets `handler` write the answer's bytes. */
function scriptedServer(handler: Handler, port = 0): ScriptedServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const open = new Set<Deno.TcpConn>();
  const tasks: Promise<void>[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => stop = resolve);
  const server = {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    connections: 0,
    closed: 0,
    requests: [] as Received[],
    close: async () => {
      listener.close();
      stop();
      for (const conn of [...open]) closeConn(conn);
      await accepting;
      await Promise.all(tasks);
    },
  };
  const closeConn = (conn: Deno.TcpConn) => {
    if (!open.delete(conn)) return;
    server.closed++;
    conn.close();
  };
  const serveConn = async (conn: Deno.TcpConn, connection: number) => {
    const reader = new RequestReader(conn);
    try {
      for (;;) {
        const request = await reader.next();
        if (request === null) break;
        const received = { ...request, connection };
        server.requests.push(received);
        if (await handler(conn, received, server.requests.length - 1, () => stopped) === "close") break;
      }
    } catch {
      // The client went away mid-write, or the server is closing.
    } finally {
      closeConn(conn);
    }
  };
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      conn.setNoDelay(true);
      open.add(conn);
      tasks.push(serveConn(conn, ++server.connections));
    }
  })();
  return server;
}

/** Writes text (as Latin-1, so any byte can be written) and bytes, whole. */
async function send(conn: Deno.Conn, ...parts: Array<string | Uint8Array>): Promise<void> {
  for (const part of parts) {
    const bytes = typeof part === "string" ? latin1(part) : part;
    for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
  }
}

/** Writes `text` in pieces of `size` bytes, with a pause after each: every piece a read of its own. */
async function drip(conn: Deno.Conn, text: string, size: number, ms = 2): Promise<void> {
  for (let at = 0; at < text.length; at += size) {
    await send(conn, text.slice(at, at + size));
    await delay(ms);
  }
}

/** A 200 with a Content-Length; `extra` is more header lines, each ending in CR LF. */
const ok = (body: string, extra = "") => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;

/** Waits until `done` is true (the server side catching up), without asserting anything about time. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await delay(5);
}

/** Runs `test` with a scripted server and a client over `dial`'s sockets, closing both however it ends. */
function serverTester(dial: Dial) {
  return async function withServer(
    handler: Handler,
    test: (server: ScriptedServer, client: HttpClient) => Promise<void>,
    options: { idleMs?: number; maxIdle?: number; client?: () => HttpClient; port?: number } = {},
  ): Promise<void> {
    const server = scriptedServer(handler, options.port);
    const client = options.client?.() ?? wireHttpClient({ dial, idleMs: options.idleMs, maxIdle: options.maxIdle });
    try {
      await test(server, client);
    } finally {
      client.close();
      await server.close();
    }
  };
}

/** Sends a request and reads its body whole. */
async function request(
  client: HttpClient,
  url: string,
  init: Partial<HttpRequest> = {},
  limit = 10_000_000,
): Promise<{ status: number; headers: Headers; body: Uint8Array | undefined }> {
  const response = await client.fetch(new URL(url), { method: "GET", headers: new Headers(), ...init });
  assert.equal(response.asSent, true);
  return { status: response.status, headers: response.headers, body: await response.bytes(limit) };
}

const text = (answer: { body: Uint8Array | undefined }) => utf8(answer.body!);

/**
 * Every behaviour on both socket kinds the crawls use: Deno's own (Deno.connect) and node:net's (Node's crawls; run here
 * by Deno's node:net, and on Node itself by the npm tests' crawls).
 */
const DIALERS: Array<[string, Dial]> = [["Deno sockets", dialDeno], ["node:net sockets", nodeDialer()]];

for (const [sockets, dial] of DIALERS) {
  const withServer = serverTester(dial);

  Deno.test(`${sockets}: a Content-Length body arrives whole, however the server's writes split it`, async () => {
    const big = "0123456789abcdef".repeat(8192); // 128 KB: past the read buffer, read straight into the body
    const long = "v".repeat(40_000); // a header longer than the read buffer: the buffer grows mid-line
    await withServer(async (conn, _request, index) => {
      if (index === 0) await drip(conn, ok("x".repeat(600)), 37);
      if (index === 1) await send(conn, `HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big.slice(0, 999)}`);
      if (index === 1) await delay(10).then(() => send(conn, big.slice(999)));
      if (index === 2) await drip(conn, ok("after the long header", `X-Long: ${long}\r\n`), 7000);
      if (index === 3) await send(conn, ok("once", "Content-Length: 4\r\n")); // the same length twice is one length
    }, async (server, client) => {
      const small = await request(client, `${server.url}/`);
      assert.equal(small.status, 200);
      assert.equal(text(small), "x".repeat(600));
      assert.deepEqual((await request(client, `${server.url}/`)).body, new TextEncoder().encode(big));
      const headed = await request(client, `${server.url}/`);
      assert.equal(headed.headers.get("x-long"), long);
      assert.equal(text(headed), "after the long header");
      assert.equal(text(await request(client, `${server.url}/`)), "once");
      assert.equal(server.connections, 1);
      assert.equal(server.requests.length, 4);
    });
  });

  Deno.test(`${sockets}: a chunked body is decoded, with chunk extensions, trailers, uppercase hex and awkward splits`, async () => {
    const alphabet = "abcdefghijklmnopqrstuvwxyz";
    const wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;foo=bar\r\nhello\r\n" +
      `1A\r\n${alphabet}\r\n1 ; name="quoted"\r\n!\r\n0\r\nX-Trailer: yes\r\nX-Other: 2\r\n\r\n`;
    const big = "z".repeat(20_000);
    await withServer(async (conn, _request, index) => {
      if (index === 0) await send(conn, wire);
      if (index === 1) await drip(conn, wire, 1, 1); // a byte at a time: every line and chunk split everywhere
      if (index === 2) await drip(conn, wire, 6);
      if (index === 3) {
        await send(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
        await drip(conn, `4E20\r\n${big}\r\n4e20\r\n${big}\r\n0\r\n\r\n`, 4096);
      }
    }, async (server, client) => {
      for (let i = 0; i < 3; i++) {
        const answer = await request(client, `${server.url}/`);
        assert.equal(text(answer), `hello${alphabet}!`, `response ${i}`);
        assert.equal(answer.headers.get("x-trailer"), null); // trailers are read and dropped
      }
      assert.equal(text(await request(client, `${server.url}/`)), big + big);
      // Trailers read to their end: the connection was clean for every next response.
      assert.equal(server.connections, 1);
      assert.equal(server.requests.length, 4);
    });
  });

  Deno.test(`${sockets}: a body without a length runs to the close, and that connection is not used again`, async () => {
    await withServer(async (conn, _request, index) => {
      await send(conn, `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end ${index}`);
      await delay(5);
      await send(conn, " and more");
      return "close";
    }, async (server, client) => {
      assert.equal(text(await request(client, `${server.url}/`)), "until the end 0 and more");
      assert.equal(text(await request(client, `${server.url}/`)), "until the end 1 and more");
      assert.equal(server.connections, 2);
    });
  });

  Deno.test(`${sockets}: a kept-alive connection carries request after request`, async () => {
    await withServer((conn, _request, index) => send(conn, ok(`answer ${index}`)), async (server, client) => {
      for (let i = 0; i < 5; i++) assert.equal(text(await request(client, `${server.url}/page/${i}`)), `answer ${i}`);
      assert.equal(server.connections, 1);
      assert.deepEqual(server.requests.map((received) => received.connection), [1, 1, 1, 1, 1]);
    });
  });

  Deno.test(`${sockets}: Connection: close, and HTTP/1.0 without keep-alive, get a new connection for each request`, async () => {
    await withServer(async (conn, request) => {
      const path = request.head.split(" ")[1];
      if (path === "/close") await send(conn, ok("closing", "Connection: close\r\n"));
      if (path === "/http10") await send(conn, "HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nold!");
      if (path === "/http10-kept") {
        await send(conn, "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 4\r\n\r\nkept");
      }
    }, async (server, client) => {
      for (let i = 0; i < 3; i++) assert.equal(text(await request(client, `${server.url}/close`)), "closing");
      assert.equal(server.connections, 3);
      for (let i = 0; i < 2; i++) assert.equal(text(await request(client, `${server.url}/http10`)), "old!");
      assert.equal(server.connections, 5);
      // HTTP/1.0 that asks for keep-alive is kept.
      for (let i = 0; i < 3; i++) assert.equal(text(await request(client, `${server.url}/http10-kept`)), "kept");
      assert.equal(server.connections, 6);
    });
  });

  Deno.test(`${sockets}: a sloppy head is read as browsers read it: bare LF, no reason phrase, a folded line`, async () => {
    await withServer(async (conn) => {
      await send(
        conn,
        "HTTP/1.1 200\nContent-Type: text/plain\nX-Folded: first\n   second\n\tthird\nContent-Length: 3\n\nabc",
      );
    }, async (server, client) => {
      for (let i = 0; i < 2; i++) {
        const answer = await request(client, `${server.url}/`);
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get("content-type"), "text/plain");
        assert.equal(answer.headers.get("x-folded"), "first second third");
        assert.equal(text(answer), "abc");
      }
      assert.equal(server.connections, 1);
    });
  });

  Deno.test(`${sockets}: header lines: one with no colon is skipped, bytes past ASCII are Latin-1, Set-Cookie stays apart`, async () => {
    await withServer(async (conn) => {
      await send(
        conn,
        "HTTP/1.1 404 Not Found\r\nSet-Cookie: a=1; Path=/\r\nthis line is no header\r\nX-Latin: caf\xe9 \xff\xa0!\r\n" +
          "Set-Cookie: b=2\r\nX-After: still read\r\nset-cookie: c=3; HttpOnly\r\nContent-Length: 2\r\n\r\nno",
      );
    }, async (server, client) => {
      const answer = await request(client, `${server.url}/`);
      assert.equal(answer.status, 404);
      assert.equal(answer.headers.get("x-latin"), "caf\u00e9 \u00ff\u00a0!");
      assert.equal(answer.headers.get("x-after"), "still read");
      assert.deepEqual(answer.headers.getSetCookie(), ["a=1; Path=/", "b=2", "c=3; HttpOnly"]);
      assert.deepEqual([...new Set(answer.headers.keys())], ["content-length", "set-cookie", "x-after", "x-latin"]);
      assert.equal(text(answer), "no");
    });
  });

  Deno.test(`${sockets}: 100 Continue and 103 Early Hints before the answer are skipped`, async () => {
    await withServer(async (conn) => {
      await send(conn, "HTTP/1.1 100 Continue\r\n\r\n");
      await delay(5);
      await send(conn, "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n", ok("real"));
    }, async (server, client) => {
      for (let i = 0; i < 2; i++) {
        const answer = await request(client, `${server.url}/`);
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get("link"), null);
        assert.equal(text(answer), "real");
      }
      assert.equal(server.connections, 1);
    });
  });

  Deno.test(`${sockets}: HEAD, 204 and 304 have no body, even with a Content-Length, and the connection is kept`, async () => {
    await withServer(async (conn, request) => {
      const path = request.head.split(" ")[1];
      if (request.head.startsWith("HEAD ")) await send(conn, "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n");
      else if (path === "/204") await send(conn, "HTTP/1.1 204 No Content\r\n\r\n");
      else if (path === "/304") {
        await send(conn, 'HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\nETag: "e"\r\n\r\n');
      } else await send(conn, ok("the body"));
    }, async (server, client) => {
      const head = await request(client, `${server.url}/`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-length"), "1234");
      assert.equal(head.body?.length, 0);
      const none = await request(client, `${server.url}/204`);
      assert.deepEqual([none.status, none.body?.length], [204, 0]);
      const same = await request(client, `${server.url}/304`);
      assert.deepEqual([same.status, same.body?.length, same.headers.get("etag")], [304, 0, '"e"']);
      assert.equal(text(await request(client, `${server.url}/`)), "the body");
      assert.equal(server.connections, 1);
      assert.equal(server.requests.length, 4);
    });
  });

  Deno.test(`${sockets}: a GET on a kept connection the server closed meanwhile is sent again on a new one`, async () => {
    await withServer(async (conn, _request, index) => {
      await send(conn, ok(`answer ${index}`));
      return "close"; // says nothing of it: the client finds out on its next request
    }, async (server, client) => {
      assert.equal(text(await request(client, `${server.url}/`)), "answer 0");
      await until(() => server.closed === 1);
      assert.equal(text(await request(client, `${server.url}/`)), "answer 1");
      assert.equal(server.connections, 2);
      assert.equal(server.requests.length, 2);
    });
  });

  Deno.test(`${sockets}: when several kept connections went stale, the GET sent again goes on a new one`, async () => {
    await withServer(async (conn, _request, index) => {
      await send(conn, ok(`answer ${index}`));
      return "close";
    }, async (server, client) => {
      // Two at once: two connections go back to the pool, and the server closes both.
      const answers = await Promise.all([request(client, `${server.url}/a`), request(client, `${server.url}/b`)]);
      assert.deepEqual(answers.map(text).sort(), ["answer 0", "answer 1"]);
      await until(() => server.closed === 2);
      assert.equal(text(await request(client, `${server.url}/`)), "answer 2");
      assert.equal(server.connections, 3);
    });
  });

  Deno.test(`${sockets}: a POST on a kept connection the server closed meanwhile fails, and is not sent twice`, async () => {
    await withServer(async (conn) => {
      await send(conn, ok("stored"));
      return "close";
    }, async (server, client) => {
      const first = await request(client, `${server.url}/form`, { method: "POST", body: "a=1" });
      assert.equal(text(first), "stored");
      await until(() => server.closed === 1);
      await assert.rejects(
        request(client, `${server.url}/form`, { method: "POST", body: "b=2" }),
        /connection closed before message completed|reset|broken pipe/i,
      );
      assert.equal(server.connections, 1);
      assert.deepEqual(server.requests.map((received) => utf8(received.body)), ["a=1"]);
    });
  });

  Deno.test(`${sockets}: a response that is no HTTP, or has two lengths, or too large a head, rejects the request`, async () => {
    const pad = `X-Pad: ${"p".repeat(1000)}\r\n`.repeat(300); // some 300 KB of header lines
    await withServer(async (conn, request) => {
      const path = request.head.split(" ")[1];
      if (path === "/garbage") await send(conn, "SSH-2.0-OpenSSH_9.6\r\n\r\n");
      if (path === "/lengths") await send(conn, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 12\r\n\r\n");
      if (path === "/huge") await send(conn, `HTTP/1.1 200 OK\r\n${pad}\r\n`);
      if (path === "/line") await send(conn, `HTTP/1.1 200 OK\r\nX-Line: ${"l".repeat(300_000)}\r\n\r\n`);
      return "close";
    }, async (server, client) => {
      await assert.rejects(request(client, `${server.url}/garbage`), /not an HTTP\/1 response: "SSH-2\.0/);
      await assert.rejects(request(client, `${server.url}/lengths`), /Content-Length is not one length: "10, 12"/);
      await assert.rejects(request(client, `${server.url}/huge`), /response head is larger than 256 KB/);
      await assert.rejects(request(client, `${server.url}/line`), /longer than \d+ bytes/);
      assert.equal(server.requests.length, 4);
    });
  });

  Deno.test(`${sockets}: a bad chunk size, or a body cut short, rejects bytes()`, async () => {
    await withServer(async (conn, request) => {
      const path = request.head.split(" ")[1];
      if (path === "/chunk") {
        await send(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n");
      }
      if (path === "/short") await send(conn, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
      if (path === "/chunk-short") await send(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nabc");
      return "close";
    }, async (server, client) => {
      const url = (path: string) => new URL(`${server.url}${path}`);
      const chunk = await client.fetch(url("/chunk"), { method: "GET", headers: new Headers() });
      await assert.rejects(chunk.bytes(1000), /bad chunk size "zz" in a chunked body/);
      const short = await client.fetch(url("/short"), { method: "GET", headers: new Headers() });
      assert.equal(short.status, 200);
      await assert.rejects(short.bytes(1000), /the connection closed 7 bytes before the body's end/);
      const chunkShort = await client.fetch(url("/chunk-short"), { method: "GET", headers: new Headers() });
      await assert.rejects(chunkShort.bytes(1000), /closed before the chunked body's end/);
    });
  });

  Deno.test(`${sockets}: a server that closes a new connection without an answer fails as a closed connection`, async () => {
    await withServer(() => Promise.resolve("close"), async (server, client) => {
      const error = await request(client, `${server.url}/`).then(() => undefined, (error) => error);
      assert.match(String(error?.message), /connection closed before message completed/);
      assert.equal(networkFailureKind(error), "closed");
      assert.equal(server.requests.length, 1); // not sent again: the connection was a new one
    });
  });

  Deno.test(`${sockets}: a request body larger than the socket's buffers goes out whole, twice on one connection`, async () => {
    // Megabytes: more than a socket takes at once, so the write waits for the socket to drain.
    const body = "0123456789abcdef".repeat(256 * 1024);
    await withServer((conn, received) => send(conn, ok(String(received.body.length))), async (server, client) => {
      assert.equal(text(await request(client, `${server.url}/upload`, { method: "POST", body })), String(body.length));
      assert.equal(text(await request(client, `${server.url}/upload`, { method: "POST", body })), String(body.length));
      assert.deepEqual(server.requests.map((received) => utf8(received.body) === body), [true, true]);
      assert.equal(server.connections, 1);
    });
  });

  Deno.test(`${sockets}: a server that drops the connection while a large body is written fails the request`, async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    // Reads a little of the request, then resets the connection: the client is still writing its body.
    const dropping = (async () => {
      const conn = await listener.accept();
      await conn.read(new Uint8Array(1024));
      conn.close();
    })();
    const client = wireHttpClient({ dial });
    try {
      const url = `http://127.0.0.1:${listener.addr.port}/upload`;
      const body = "x".repeat(8 * 1024 * 1024);
      const failed = request(client, url, { method: "POST", body }).then(() => "answered", (e) => e);
      // A write left waiting for ever would hang the request: after 30 s that is this test's failure, not a hang.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const pending = new Promise<string>((resolve) => timer = setTimeout(() => resolve("still pending"), 30_000));
      const error = await Promise.race([failed, pending]);
      clearTimeout(timer);
      assert.ok(error instanceof Error, `the request failed (${error})`);
    } finally {
      client.close();
      await dropping;
      listener.close();
    }
  });

  Deno.test(`${sockets}: a body past the limit gives undefined, in every framing, and its connection is not kept`, async () => {
    const body = "b".repeat(5000);
    await withServer(async (conn, request) => {
      const path = request.head.split(" ")[1];
      if (path === "/length") await send(conn, ok(body));
      if (path === "/chunked") {
        await send(conn, `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n`);
        await drip(conn, `${(1000).toString(16)}\r\n${"b".repeat(1000)}\r\n`.repeat(5) + "0\r\n\r\n", 1500);
      }
      if (path === "/close") {
        await send(conn, `HTTP/1.1 200 OK\r\n\r\n`);
        await drip(conn, body, 1000);
        return "close";
      }
    }, async (server, client) => {
      for (const path of ["/length", "/chunked", "/close"]) {
        const over = await request(client, `${server.url}${path}`, {}, 4999);
        assert.equal(over.status, 200);
        assert.equal(over.body, undefined, path);
      }
      assert.equal(server.connections, 3);
      // At the limit exactly, the body is whole.
      for (const path of ["/length", "/chunked", "/close"]) {
        assert.equal(text(await request(client, `${server.url}${path}`, {}, 5000)), body, path);
      }
    });
  });

  Deno.test(`${sockets}: aborting while the body is read, or while the answer is awaited, rejects at once`, async () => {
    await withServer(async (conn, request, _index, hang) => {
      if (request.head.startsWith("GET /head ")) await send(conn, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart");
      await hang();
    }, async (server, client) => {
      const reading = new AbortController();
      const response = await client.fetch(new URL(`${server.url}/head`), {
        method: "GET",
        headers: new Headers(),
        signal: reading.signal,
      });
      const bytes = response.bytes(1000);
      reading.abort();
      await assert.rejects(bytes, { name: "AbortError" });
      const waiting = new AbortController();
      const fetching = client.fetch(new URL(`${server.url}/nothing`), {
        method: "GET",
        headers: new Headers(),
        signal: waiting.signal,
      });
      await until(() => server.requests.length === 2);
      waiting.abort();
      await assert.rejects(fetching, { name: "AbortError" });
    });
  });

  Deno.test(`${sockets}: aborting after the answer came, before its body is read, rejects bytes() and drops the connection`, async () => {
    await withServer((conn) => send(conn, ok("hello")), async (server, client) => {
      const controller = new AbortController();
      const response = await client.fetch(new URL(`${server.url}/`), {
        method: "GET",
        headers: new Headers(),
        signal: controller.signal,
      });
      await delay(20); // the body, sent with the head, is in the read buffer by now
      controller.abort();
      await assert.rejects(response.bytes(1000), { name: "AbortError" });
      // The aborted connection (its socket closed) did not go back to the pool: a POST is not retried, so it shows.
      assert.equal(text(await request(client, `${server.url}/`, { method: "POST", body: "x" })), "hello");
      assert.equal(server.connections, 2);
    });
  });

  Deno.test(`${sockets}: connecting to a port nobody listens on fails as refused`, async () => {
    const client = wireHttpClient({ dial });
    try {
      const port = await freePort();
      const error = await request(client, `http://127.0.0.1:${port}/`).then(() => undefined, (error) => error);
      assert.ok(error instanceof Error);
      assert.equal(networkFailureKind(error), "refused");
    } finally {
      client.close();
    }
  });

  Deno.test(`${sockets}: the request goes out as sent: request line, host with port, the caller's headers, the body's length`, async () => {
    await withServer((conn) => send(conn, ok("")), async (server, client) => {
      const headers = new Headers({ "User-Agent": "netweir-test/1", Accept: "text/html" });
      await request(client, `${server.url}/path?q=1#fragment`, { headers });
      await request(client, `${server.url}/form`, { method: "POST", body: "name=caf\u00e9" });
      await request(client, `${server.url}/empty`, { method: "POST" });
      const [get, post, empty] = server.requests.map((received) => received.head.split("\r\n"));
      const port = new URL(server.url).port;
      assert.equal(get[0], "GET /path?q=1 HTTP/1.1");
      assert.ok(get.includes(`host: 127.0.0.1:${port}`), get.join("|"));
      assert.ok(get.includes("user-agent: netweir-test/1") && get.includes("accept: text/html"), get.join("|"));
      assert.equal(get.some((line) => /^content-length:/i.test(line)), false);
      assert.equal(post[0], "POST /form HTTP/1.1");
      assert.ok(post.includes("content-length: 10"), post.join("|")); // é is two bytes in UTF-8
      assert.equal(utf8(server.requests[1].body), "name=caf\u00e9");
      assert.ok(empty.includes("content-length: 0"), empty.join("|"));
      assert.equal(server.connections, 1);
    });
  });

  Deno.test(`${sockets}: a cancelled body's connection is not used again`, async () => {
    await withServer((conn) => send(conn, ok("unread body")), async (server, client) => {
      const response = await client.fetch(new URL(`${server.url}/`), { method: "GET", headers: new Headers() });
      await response.cancel();
      assert.equal(text(await request(client, `${server.url}/`)), "unread body");
      assert.equal(server.connections, 2);
    });
  });

  Deno.test(`${sockets}: a connection idle for longer than idleMs is not used again`, async () => {
    await withServer((conn) => send(conn, ok("fresh")), async (server, client) => {
      assert.equal(text(await request(client, `${server.url}/`)), "fresh");
      await delay(120);
      assert.equal(text(await request(client, `${server.url}/`)), "fresh");
      assert.equal(server.connections, 2);
    }, { idleMs: 50 });
  });

  Deno.test(`${sockets}: a 101 nobody asked for ends its connection`, async () => {
    await withServer(async (conn, request) => {
      if (request.connection === 1) await send(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: nope\r\n\r\n");
      else await send(conn, ok("plain"));
    }, async (server, client) => {
      const switched = await request(client, `${server.url}/`);
      assert.deepEqual([switched.status, switched.body?.length], [101, 0]);
      assert.equal(text(await request(client, `${server.url}/`)), "plain");
      assert.equal(server.connections, 2);
    });
  });

  Deno.test(`${sockets}: forty large bodies at once arrive byte for byte`, async () => {
    // node:net's sockets of one client share a read buffer: bytes of one connection must never land in another's.
    const body = new Uint8Array(300_000).map((_, i) => (i * 7 + (i >> 8)) & 255);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response(body));
    const client = wireHttpClient({ dial });
    try {
      const url = `http://127.0.0.1:${server.addr.port}/`;
      const bodies = await Promise.all(Array.from({ length: 40 }, () => request(client, url)));
      for (const answer of bodies) assert.deepEqual(answer.body, body);
    } finally {
      client.close();
      await server.shutdown();
    }
  });

  Deno.test(`${sockets}: past maxIdle idle connections in all, the oldest is closed`, async () => {
    await withServer((conn, _request, index) => send(conn, ok(`answer ${index}`)), async (server, client) => {
      // Three at once: three connections, of which only two may wait idle afterwards.
      const answers = await Promise.all(["/a", "/b", "/c"].map((path) => request(client, `${server.url}${path}`)));
      assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200]);
      assert.equal(server.connections, 3);
      await until(() => server.closed === 1);
      for (let i = 0; i < 2; i++) await request(client, `${server.url}/again`);
      assert.equal(server.connections, 3);
      assert.equal(server.closed, 1);
    }, { maxIdle: 2 });
  });
  Deno.test(`${sockets}: past maxIdle, the origin put back to least recently loses a connection first`, async () => {
    // A broad crawl visits its hosts in turn: the host whose connections came back longest ago is the one done with,
    // not the one first seen. Origin one keeps two idle connections and is used again after origin two.
    const answer = (conn: Deno.TcpConn) => send(conn, ok("x"));
    const [one, two, three] = [scriptedServer(answer), scriptedServer(answer), scriptedServer(answer)];
    const client = wireHttpClient({ dial, maxIdle: 3 });
    try {
      await Promise.all([request(client, `${one.url}/`), request(client, `${one.url}/`)]);
      await request(client, `${two.url}/`);
      await request(client, `${one.url}/again`);
      await request(client, `${three.url}/`);
      await until(() => two.closed === 1);
      // Origin one's two connections are both still there; origin two needs a new one.
      await Promise.all([request(client, `${one.url}/both`), request(client, `${one.url}/both`)]);
      await request(client, `${two.url}/back`);
      assert.deepEqual([one.connections, two.connections, three.connections], [2, 2, 1]);
      assert.equal(one.closed, 0);
    } finally {
      client.close();
      await Promise.all([one, two, three].map((server) => server.close()));
    }
  });
}

/** Ports on the Fetch standard's bad-port list (as in tests/fetch/network_errors_test.ts), tried in turn. */
const BAD_PORTS = [6000, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080, 4190, 5060, 5061, 6566];

Deno.test("Deno's runtime client is this client: it reaches a port the Fetch standard blocks", async () => {
  const port = BAD_PORTS.find((port) => {
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return true;
    } catch {
      return false;
    }
  });
  if (port === undefined) throw new Error("no port of the bad-port list is free");
  await serverTester(dialDeno)((conn) => send(conn, ok("on a bad port", "X-Raw: yes\r\n")), async (server, client) => {
    for (let i = 0; i < 2; i++) {
      const answer = await request(client, `${server.url}/`);
      assert.equal(answer.headers.get("x-raw"), "yes");
      assert.equal(text(answer), "on a bad port");
    }
    assert.equal(server.connections, 1);
  }, { port, client: () => runtime.httpClient({}) });
});
