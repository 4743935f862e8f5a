import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import {
  type FetchHandler,
  type HttpServer,
  type HttpServerOptions,
  startHttpServer,
} from "../../src/serve/http_server.ts";
import { setImmediate } from "node:timers";
import { ManualClock } from "../helpers/manual_clock.ts";
import { waitUntil } from "../helpers/wait.ts";

/** A client socket that records what it receives and when it closes. */
interface RawClient {
  socket: Socket;
  received(): string;
  isClosed(): boolean;
  /** Resolves with everything received once the server (or the client) closes the connection. */
  closed: Promise<string>;
}

function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let isClosed = false;
    const closed = new Promise<string>((done) => {
      socket.on("close", () => {
        isClosed = true;
        done(text);
      });
    });
    socket.on("data", (chunk) => text += chunk.toString("latin1"));
    socket.on("error", () => {}); // a reset is one way of being closed; 'close' follows
    socket.once("connect", () => resolve({ socket, received: () => text, isClosed: () => isClosed, closed }));
    socket.once("error", reject);
  });
}

/** Sends `request` on a new connection and returns the whole answer once the server closes it. */
async function exchange(port: number, request: string | Uint8Array): Promise<string> {
  const client = await rawClient(port);
  client.socket.write(request);
  return await client.closed;
}

function parseAnswer(answer: string): { status: number; headers: string[]; body: string } {
  const split = answer.indexOf("\r\n\r\n");
  const [statusLine, ...headers] = answer.slice(0, split).split("\r\n");
  return {
    status: Number(statusLine.split(" ")[1]),
    headers: headers.map((h) => h.toLowerCase()),
    body: answer.slice(split + 4),
  };
}

async function withServer(
  handler: FetchHandler,
  options: Partial<HttpServerOptions>,
  body: (server: HttpServer) => Promise<void>,
): Promise<void> {
  const server = await startHttpServer(handler, { hostname: "127.0.0.1", port: 0, log: () => {}, ...options });
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

const ok: FetchHandler = () => new Response("ok");
const GET = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

Deno.test("a GET reaches the handler with its method, URL, headers and the client's address", async () => {
  let seen: { method: string; url: string; accept: string | null; custom: string | null; address: string } | undefined;
  const handler: FetchHandler = (request, info) => {
    seen = {
      method: request.method,
      url: request.url,
      accept: request.headers.get("accept"),
      custom: request.headers.get("x-custom"),
      address: info.remoteAddress,
    };
    return Response.json({ status: "ok" });
  };
  await withServer(handler, {}, async (server) => {
    const response = await fetch(`http://127.0.0.1:${server.port}/listjobs.json?project=shop`, {
      headers: { accept: "application/json", "x-custom": "a, b" },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: "ok" });
    assert.equal(response.headers.get("connection"), "close");
    assert.deepEqual(seen, {
      method: "GET",
      url: `http://127.0.0.1:${server.port}/listjobs.json?project=shop`,
      accept: "application/json",
      custom: "a, b",
      address: "127.0.0.1",
    });
  });
});

Deno.test("a POST with a form body reaches the handler with the body and its content type", async () => {
  let seen: { method: string; type: string | null; form: Record<string, string[]> } | undefined;
  const handler: FetchHandler = async (request) => {
    const form = new URLSearchParams(await request.text());
    seen = {
      method: request.method,
      type: request.headers.get("content-type"),
      form: { project: form.getAll("project"), setting: form.getAll("setting") },
    };
    return new Response("scheduled", { status: 201 });
  };
  await withServer(handler, {}, async (server) => {
    const body = new URLSearchParams([["project", "shop"], ["setting", "max_items=500"], ["setting", "concurrency=8"]]);
    const response = await fetch(`http://127.0.0.1:${server.port}/schedule.json`, { method: "POST", body });
    assert.equal(response.status, 201);
    assert.equal(await response.text(), "scheduled");
    assert.deepEqual(seen, {
      method: "POST",
      type: "application/x-www-form-urlencoded;charset=UTF-8",
      form: { project: ["shop"], setting: ["max_items=500", "concurrency=8"] },
    });
  });
});

Deno.test("the URL comes from the Host header, or from the listen address for an HTTP/1.0 request without one", async () => {
  const urls: string[] = [];
  const handler: FetchHandler = (request) => {
    urls.push(request.url);
    return new Response("ok");
  };
  await withServer(handler, {}, async (server) => {
    await exchange(server.port, "GET /a?b=1 HTTP/1.1\r\nHost: localhost:6800\r\n\r\n");
    const answer = parseAnswer(await exchange(server.port, "GET /daemonstatus.json HTTP/1.0\r\n\r\n"));
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "ok", "an HTTP/1.0 answer is not chunked");
    assert.deepEqual(urls, ["http://localhost:6800/a?b=1", `http://127.0.0.1:${server.port}/daemonstatus.json`]);
  });
});

Deno.test("several Set-Cookie headers stay separate and a streamed body arrives whole, chunked", async () => {
  const handler: FetchHandler = () => {
    const headers = new Headers([["set-cookie", "a=1; Path=/"], ["set-cookie", "b=2; Path=/"]]);
    const parts = ["first ", "second ", "third"];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts.shift();
        if (part === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(part));
      },
    });
    return new Response(body, { status: 202, headers });
  };
  await withServer(handler, {}, async (server) => {
    const answer = parseAnswer(await exchange(server.port, GET));
    assert.equal(answer.status, 202);
    assert.deepEqual(answer.headers.filter((h) => h.startsWith("set-cookie:")), [
      "set-cookie: a=1; path=/",
      "set-cookie: b=2; path=/",
    ]);
    assert.ok(answer.headers.includes("transfer-encoding: chunked"));
    assert.ok(answer.headers.includes("connection: close"));
    assert.equal(answer.body, "6\r\nfirst \r\n7\r\nsecond \r\n5\r\nthird\r\n0\r\n\r\n");
  });
});

Deno.test("the 9th connection from one address is closed unanswered while the 8 stay open, and a freed slot is reused", async () => {
  await withServer(ok, {}, async (server) => {
    const eight = await Promise.all(Array.from({ length: 8 }, () => rawClient(server.port)));
    try {
      await waitUntil("8 connections", () => server.connections() === 8);
      const ninth = await rawClient(server.port);
      assert.equal(await ninth.closed, "", "the 9th gets no answer");
      assert.equal(server.connections(), 8);
      assert.ok(eight.every((client) => !client.isClosed()), "the 8 are untouched");

      eight[0].socket.write(GET);
      assert.match(await eight[0].closed, /^HTTP\/1\.1 200 OK\r\n/);
      await waitUntil("the finished connection to go", () => server.connections() === 7);
      const another = await rawClient(server.port);
      another.socket.write(GET);
      assert.match(await another.closed, /^HTTP\/1\.1 200 OK\r\n/);
    } finally {
      for (const client of eight) client.socket.destroy();
      await Promise.all(eight.map((client) => client.closed));
    }
  });
});

Deno.test("past maxConnections a new connection is closed unanswered, whatever its address may hold", async () => {
  await withServer(ok, { maxConnections: 5, maxPerAddress: 100 }, async (server) => {
    const five = await Promise.all(Array.from({ length: 5 }, () => rawClient(server.port)));
    try {
      await waitUntil("5 connections", () => server.connections() === 5);
      const sixth = await rawClient(server.port);
      assert.equal(await sixth.closed, "");
      assert.ok(five.every((client) => !client.isClosed()));
      five[4].socket.write(GET);
      assert.match(await five[4].closed, /^HTTP\/1\.1 200 OK\r\n/);
    } finally {
      for (const client of five) client.socket.destroy();
      await Promise.all(five.map((client) => client.closed));
    }
  });
});

/**
 * Sends `request` a byte per virtual second of `clock` until the connection closes; returns how many bytes went out.
 * Each byte is written before the clock moves, so the server has it before the next deadline check.
 */
async function trickle(client: RawClient, request: string, clock: ManualClock): Promise<number> {
  let sent = 0;
  while (!client.isClosed() && sent < request.length) {
    client.socket.write(request[sent++]);
    await clock.advance(1000);
    await Promise.race([client.closed, new Promise((resolve) => setImmediate(resolve))]);
  }
  return sent;
}

Deno.test("a request trickling in a byte a second is closed unanswered at the deadline", async () => {
  let calls = 0;
  const handler: FetchHandler = () => (calls++, new Response("ok"));
  const clock = new ManualClock();
  await withServer(handler, { requestTimeoutMs: 1500, timers: clock }, async (server) => {
    const client = await rawClient(server.port);
    await waitUntil("the connection accepted", () => server.connections() === 1);
    const sent = await trickle(client, GET, clock);
    assert.ok(client.isClosed());
    assert.ok(sent < GET.length, "closed before the request was complete");
    assert.equal(client.received(), "");
    assert.equal(calls, 0);
  });
});

Deno.test("by default a slow request is still open at 10 s and closed by 17 s (the spec's 15 s)", async () => {
  const clock = new ManualClock();
  await withServer(ok, { timers: clock }, async (server) => {
    const request = "GET /daemonstatus.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    // Both connect at the same virtual moment and send a byte a second: never idle, never whole.
    const finished = await rawClient(server.port);
    const slow = await rawClient(server.port);
    await waitUntil("both connections accepted", () => server.connections() === 2);
    for (let second = 0; second < 10; second++) {
      finished.socket.write(request[second]);
      slow.socket.write(request[second]);
      await clock.advance(1000);
    }
    assert.equal(slow.isClosed(), false, "open at 10 s");
    await clock.advance(4_999);
    // Open at 14.999 s: the rest of the request, sent now, is answered.
    finished.socket.write(request.slice(10));
    assert.match(await finished.closed, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(slow.isClosed(), false, "open at 14.999 s");
    await clock.advance(1);
    await waitUntil("the close at 15 s", () => slow.isClosed());
    assert.equal(slow.received(), "", "closed at 15 s, unanswered");
    await clock.advance(2_000);
    assert.equal(slow.isClosed(), true, "closed by 17 s");
  });
});

Deno.test("refused requests get their status and are never handed to the handler", async () => {
  let calls = 0;
  const handler: FetchHandler = () => (calls++, new Response("ok"));
  await withServer(handler, { maxHeaderBytes: 16 * 1024, maxBodyBytes: 1024 * 1024 }, async (server) => {
    const status = async (request: string) => parseAnswer(await exchange(server.port, request)).status;
    const bigHeader = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`;
    assert.equal(await status(bigHeader), 431);
    assert.equal(await status(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(17 * 1024)}`), 431);
    assert.equal(await status("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1048577\r\n\r\n"), 413);
    assert.equal(await status("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 411);
    assert.equal(await status("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n"), 501);
    assert.equal(await status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"), 400);
    assert.equal(await status("GET / HTTP/1.1\r\n\r\n"), 400, "HTTP/1.1 needs a Host");
    assert.equal(await status("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"), 400);
    assert.equal(await status("GET / HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n"), 505);
    assert.equal(await status("GET /\x01 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 400);
    assert.equal(await status("TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 501);
    assert.equal(calls, 0);
  });
});

Deno.test("the errors this layer answers itself carry node_name when one is given, like every answer of serve", async () => {
  await withServer(ok, { maxBodyBytes: 1024, nodeName: "box-1" }, async (server) => {
    const tooLarge = parseAnswer(
      await exchange(server.port, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1025\r\n\r\n"),
    );
    assert.equal(tooLarge.status, 413);
    const answer = JSON.parse(tooLarge.body.replace(/^[0-9a-f]+\r\n/, "").replace(/\r\n0\r\n\r\n$/, ""));
    assert.deepEqual(Object.keys(answer), ["node_name", "status", "message"]);
    assert.equal(answer.node_name, "box-1");
    assert.equal(answer.status, "error");
  });
});

Deno.test("a body of exactly the limit is accepted", async () => {
  const handler: FetchHandler = async (request) => new Response(String((await request.arrayBuffer()).byteLength));
  await withServer(handler, { maxBodyBytes: 1000 }, async (server) => {
    const answer = await exchange(
      server.port,
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n${"z".repeat(1000)}`,
    );
    assert.equal(parseAnswer(answer).body, "4\r\n1000\r\n0\r\n\r\n");
  });
});

Deno.test("a client expecting 100-continue is told to go on", async () => {
  const handler: FetchHandler = async (request) => new Response(await request.text());
  await withServer(handler, {}, async (server) => {
    const client = await rawClient(server.port);
    client.socket.write("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
    await waitUntil("100 Continue", () => client.received().includes("\r\n\r\n"));
    assert.equal(client.received(), "HTTP/1.1 100 Continue\r\n\r\n");
    client.socket.write("hello");
    const answer = (await client.closed).slice("HTTP/1.1 100 Continue\r\n\r\n".length);
    assert.equal(parseAnswer(answer).body, "5\r\nhello\r\n0\r\n\r\n");
  });
});

Deno.test("a handler that throws gives 500 with a plain JSON message and no stack", async () => {
  const logged: string[] = [];
  const handler: FetchHandler = () => {
    throw new Error("secret detail");
  };
  await withServer(handler, { log: (line) => logged.push(line) }, async (server) => {
    const response = await fetch(`http://127.0.0.1:${server.port}/boom`);
    assert.equal(response.status, 500);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.deepEqual(await response.json(), { status: "error", message: "internal error" });
    assert.equal(logged.length, 1);
    assert.match(logged[0], /GET \/boom failed: Error: secret detail/);
  });
});

Deno.test("a HEAD request gets the headers and no body", async () => {
  const handler: FetchHandler = () => new Response("hello world", { headers: { "content-length": "11", "x-a": "1" } });
  await withServer(handler, {}, async (server) => {
    const answer = parseAnswer(await exchange(server.port, "HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    assert.equal(answer.status, 200);
    assert.ok(answer.headers.includes("content-length: 11"));
    assert.ok(answer.headers.includes("x-a: 1"));
    assert.equal(answer.body, "");
  });
});

Deno.test("a body shorter than its Content-Length cuts the connection rather than end it cleanly", async () => {
  const logged: string[] = [];
  const handler: FetchHandler = () => new Response("short", { headers: { "content-length": "100" } });
  await withServer(handler, { log: (line) => logged.push(line) }, async (server) => {
    const answer = parseAnswer(await exchange(server.port, GET));
    assert.equal(answer.body, "short");
    assert.ok(answer.headers.includes("content-length: 100"));
    assert.equal(logged.length, 1);
    assert.match(logged[0], /cut off: the response body ended 95 bytes short/);
  });
});

/** A body that sends `parts` chunks, one every `everyMs`, then ends (or never ends when `parts` is Infinity). */
function slowBody(parts: number, everyMs: number, onCancel: () => void = () => {}): ReadableStream<Uint8Array> {
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === parts) return controller.close();
      await new Promise<void>((resolve) => timer = setTimeout(resolve, everyMs));
      controller.enqueue(new TextEncoder().encode(`part${sent++};`));
    },
    cancel() {
      clearTimeout(timer);
      onCancel();
    },
  });
}

Deno.test("close() lets a slow response in flight finish, and refuses new connections", async () => {
  const server = await startHttpServer(() => new Response(slowBody(5, 100)), { hostname: "127.0.0.1", port: 0 });
  const client = await rawClient(server.port);
  client.socket.write(GET);
  await waitUntil("the first part", () => client.received().includes("part0;"));
  const closing = server.close();
  const answer = parseAnswer(await client.closed);
  await closing;
  assert.equal(answer.body.replace(/\r\n[0-9a-f]+\r\n|^[0-9a-f]+\r\n|\r\n$/g, ""), "part0;part1;part2;part3;part4;");
  assert.ok(answer.body.endsWith("0\r\n\r\n"), "the response was finished");
  await assert.rejects(rawClient(server.port));
  assert.equal(server.connections(), 0);
});

Deno.test("close() cuts a response that outlasts the grace period, and the body is cancelled", async () => {
  let cancelled = false;
  const body = () => new Response(slowBody(Infinity, 50, () => cancelled = true));
  const server = await startHttpServer(body, { hostname: "127.0.0.1", port: 0, closeGraceMs: 300 });
  const idle = await rawClient(server.port);
  const client = await rawClient(server.port);
  client.socket.write(GET);
  await waitUntil("the first part", () => client.received().includes("part0;"));
  await server.close();
  assert.equal(await idle.closed, "", "an idle connection is ended at once");
  const answer = await client.closed;
  assert.ok(!answer.endsWith("0\r\n\r\n"), "the endless response was cut");
  assert.equal(cancelled, true);
  assert.equal(server.connections(), 0);
});

Deno.test("a limit that is not a positive number is refused before listening", async () => {
  await assert.rejects(startHttpServer(ok, { hostname: "127.0.0.1", port: 0, maxPerAddress: 0 }), RangeError);
  await assert.rejects(startHttpServer(ok, { hostname: "127.0.0.1", port: 0, requestTimeoutMs: NaN }), RangeError);
});

Deno.test("a port already in use fails the start", async () => {
  await withServer(ok, {}, async (server) => {
    await assert.rejects(startHttpServer(ok, { hostname: "127.0.0.1", port: server.port }), /EADDRINUSE|in use/i);
  });
});
