/**
 * The hand-written request parser of the HTTP front, attacked through a real listening socket: malformed request
 * lines, folded and duplicated headers, every Content-Length / Transfer-Encoding shape used for request smuggling,
 * chunked bodies (refused), and requests mutated at random from a valid one. docs/design/serve.md says why the front
 * keeps its own parser instead of node:http's.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connect } from "node:net";
import { type FetchHandler, type HttpServer, startHttpServer } from "../../src/serve/http_server.ts";
import { seededRandom } from "../helpers/seeded_random.ts";

/** Sends `request` on a new connection and returns everything the server sent once the connection is closed. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk) => text += chunk.toString("latin1"));
    socket.on("error", () => {}); // a reset is one way of being closed; 'close' follows
    socket.on("close", () => resolve(text));
    socket.once("connect", () => socket.write(Buffer.from(request, "latin1")));
  });
}

/** The status of an answer, or 0 when the connection was closed without one. */
function statusOf(answer: string): number {
  if (answer === "") return 0;
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
  assert.ok(match, `not an HTTP answer: ${JSON.stringify(answer.slice(0, 60))}`);
  return Number(match[1]);
}

/** A server whose handler records the method, path and body of each request it is given. */
async function withRecordingServer(
  body: (server: HttpServer, seen: string[]) => Promise<void>,
  requestTimeoutMs = 15_000,
): Promise<void> {
  const seen: string[] = [];
  const handler: FetchHandler = async (request) => {
    seen.push(`${request.method} ${new URL(request.url).pathname} ${await request.text()}`);
    return new Response("ok");
  };
  const server = await startHttpServer(handler, {
    hostname: "127.0.0.1",
    port: 0,
    log: () => {},
    requestTimeoutMs,
    maxPerAddress: 64,
  });
  try {
    await body(server, seen);
  } finally {
    await server.close();
  }
}

const H = "Host: 127.0.0.1\r\n";

/** [what, request, the status it must get]. None of these may reach the handler. */
const REFUSED: [string, string, number][] = [
  // request lines
  ["two spaces", `GET  / HTTP/1.1\r\n${H}\r\n`, 400],
  ["a trailing space", `GET / HTTP/1.1 \r\n${H}\r\n`, 400],
  ["tabs for spaces", `GET\t/\tHTTP/1.1\r\n${H}\r\n`, 400],
  ["no version", `GET /\r\n${H}\r\n`, 400],
  ["a lowercase protocol", `GET / http/1.1\r\n${H}\r\n`, 400],
  ["a two-digit minor version", `GET / HTTP/1.10\r\n${H}\r\n`, 400],
  ["HTTP/0.9", `GET / HTTP/0.9\r\n${H}\r\n`, 505],
  ["HTTP/2.0", `GET / HTTP/2.0\r\n${H}\r\n`, 505],
  ["a method that is not a token", `GE(T / HTTP/1.1\r\n${H}\r\n`, 400],
  ["an asterisk target", `OPTIONS * HTTP/1.1\r\n${H}\r\n`, 400],
  ["an authority target", `CONNECT 127.0.0.1:80 HTTP/1.1\r\n${H}\r\n`, 400],
  ["an https absolute target", `GET https://127.0.0.1/ HTTP/1.1\r\n${H}\r\n`, 400],
  ["an absolute target with userinfo", `GET http://u:p@127.0.0.1/ HTTP/1.1\r\n${H}\r\n`, 400],
  ["raw UTF-8 in the target", `GET /caf\xc3\xa9 HTTP/1.1\r\n${H}\r\n`, 400],
  ["a NUL in the target", `GET /\x00 HTTP/1.1\r\n${H}\r\n`, 400],
  ["a bare CR in the request line", `GET /\r HTTP/1.1\r\n${H}\r\n`, 400],
  // header lines
  ["a folded header", `GET / HTTP/1.1\r\n${H}X-A: 1\r\n  2\r\n\r\n`, 400],
  ["a header folded with a tab", `GET / HTTP/1.1\r\n${H}X-A: 1\r\n\t2\r\n\r\n`, 400],
  ["a first header line folded", `GET / HTTP/1.1\r\n ${H}\r\n`, 400],
  ["a header without a colon", `GET / HTTP/1.1\r\n${H}X-A\r\n\r\n`, 400],
  ["an empty header name", `GET / HTTP/1.1\r\n${H}: x\r\n\r\n`, 400],
  ["a space before the colon", `GET / HTTP/1.1\r\n${H}X-A : x\r\n\r\n`, 400],
  ["a space inside a name", `GET / HTTP/1.1\r\n${H}X A: x\r\n\r\n`, 400],
  ["a bare CR inside a value", `GET / HTTP/1.1\r\n${H}X-A: a\rb\r\n\r\n`, 400],
  ["a NUL inside a value", `GET / HTTP/1.1\r\n${H}X-A: a\x00b\r\n\r\n`, 400],
  ["a DEL inside a value", `GET / HTTP/1.1\r\n${H}X-A: a\x7fb\r\n\r\n`, 400],
  // Host
  ["HTTP/1.1 without Host", `GET / HTTP/1.1\r\n\r\n`, 400],
  ["two Host headers", `GET / HTTP/1.1\r\n${H}Host: 127.0.0.1\r\n\r\n`, 400],
  ["two Host headers in other cases", `GET / HTTP/1.1\r\n${H}hOST: other\r\n\r\n`, 400],
  ["a Host with a space", `GET / HTTP/1.1\r\nHost: a b\r\n\r\n`, 400],
  ["a Host with a path", `GET / HTTP/1.1\r\nHost: a/b\r\n\r\n`, 400],
  ["a Host with userinfo", `GET / HTTP/1.1\r\nHost: u@a\r\n\r\n`, 400],
  // Content-Length
  ["two different Content-Lengths", `POST / HTTP/1.1\r\n${H}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`, 400],
  ["a list of different lengths", `POST / HTTP/1.1\r\n${H}Content-Length: 1, 2\r\n\r\nab`, 400],
  ["a signed length", `POST / HTTP/1.1\r\n${H}Content-Length: +1\r\n\r\na`, 400],
  ["a negative length", `POST / HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n`, 400],
  ["a hexadecimal length", `POST / HTTP/1.1\r\n${H}Content-Length: 0x1\r\n\r\na`, 400],
  ["an exponent", `POST / HTTP/1.1\r\n${H}Content-Length: 1e1\r\n\r\naaaaaaaaaa`, 400],
  ["an empty length", `POST / HTTP/1.1\r\n${H}Content-Length:\r\n\r\n`, 400],
  ["a length with an inner space", `POST / HTTP/1.1\r\n${H}Content-Length: 1 1\r\n\r\n`, 400],
  ["a length past any limit", `POST / HTTP/1.1\r\n${H}Content-Length: 99999999999999999999\r\n\r\n`, 413],
  // Transfer-Encoding, the smuggling shapes: whatever its spelling, a chunked body is never read
  ["CL then TE", `POST / HTTP/1.1\r\n${H}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 411],
  ["TE then CL", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n`, 411],
  ["TE in capitals", `POST / HTTP/1.1\r\n${H}TRANSFER-ENCODING: CHUNKED\r\n\r\n0\r\n\r\n`, 411],
  ["TE as a list", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`, 411],
  ["TE twice", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n`, 411],
  ["TE chunked then identity", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked, identity\r\n\r\n`, 411],
  ["TE with a tab before the value", `POST / HTTP/1.1\r\n${H}Transfer-Encoding:\tchunked\r\n\r\n0\r\n\r\n`, 411],
  ["TE with a tab in the name", `POST / HTTP/1.1\r\n${H}Transfer-Encoding\t: chunked\r\n\r\n0\r\n\r\n`, 400],
  ["TE with a space in the name", `POST / HTTP/1.1\r\n${H}Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n`, 400],
  ["TE folded onto a line", `POST / HTTP/1.1\r\n${H}Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n`, 400],
  ["TE with a NUL", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\x00\r\n\r\n`, 400],
  ["TE xchunked", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: xchunked\r\n\r\n`, 411],
  ["TE identity", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: identity\r\n\r\n`, 501],
  ["TE empty", `POST / HTTP/1.1\r\n${H}Transfer-Encoding:\r\n\r\n`, 501],
  ["TE on a GET", `GET / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 411],
  [
    "a chunked body hiding a second request",
    `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /admin HTTP/1.1\r\n${H}\r\n`,
    411,
  ],
  ["chunk extensions", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n1;ext=1\r\na\r\n0\r\n\r\n`, 411],
  ["a chunk size overflow", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff1\r\n`, 411],
  ["chunked with trailers", `POST / HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n\r\n`, 411],
  // Expect
  ["an unknown expectation", `POST / HTTP/1.1\r\n${H}Expect: 200-ok\r\nContent-Length: 0\r\n\r\n`, 417],
];

Deno.test("malformed and smuggling-shaped requests are refused with their status and never reach the handler", async () => {
  await withRecordingServer(async (server, seen) => {
    const wrong: string[] = [];
    for (const [what, request, expected] of REFUSED) {
      const answer = await exchange(server.port, request);
      const status = statusOf(answer);
      if (status !== expected) wrong.push(`${what}: ${status}, expected ${expected}`);
      else if (!answer.toLowerCase().includes("\r\nconnection: close\r\n")) wrong.push(`${what}: not closed`);
    }
    assert.deepEqual(wrong, []);
    assert.deepEqual(seen, [], "none reached the handler");
    assert.equal(statusOf(await exchange(server.port, `GET / HTTP/1.1\r\n${H}\r\n`)), 200, "still serving");
  });
});

Deno.test("what RFC 9112 allows is accepted: bare LF, blank lines first, repeated equal lengths, absolute form", async () => {
  await withRecordingServer(async (server, seen) => {
    const accepted = [
      "GET /lf HTTP/1.1\nHost: 127.0.0.1\n\n",
      `\r\n\r\nGET /blank-lines-first HTTP/1.1\r\n${H}\r\n`,
      `POST /equal-lengths HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello`,
      `POST /equal-list HTTP/1.1\r\n${H}Content-Length: 5, 5\r\n\r\nhello`,
      "GET http://127.0.0.1/absolute HTTP/1.1\r\nHost: other\r\n\r\n",
      "GET /no-host HTTP/1.0\r\n\r\n",
    ];
    for (const request of accepted) assert.equal(statusOf(await exchange(server.port, request)), 200, request);
    assert.deepEqual(seen, [
      "GET /lf ",
      "GET /blank-lines-first ",
      "POST /equal-lengths hello",
      "POST /equal-list hello",
      "GET /absolute ",
      "GET /no-host ",
    ]);
  });
});

Deno.test("bytes past the declared body are never read as a second request", async () => {
  await withRecordingServer(async (server, seen) => {
    const smuggled = `GET /admin HTTP/1.1\r\n${H}\r\n`;
    const requests = [
      `POST /first HTTP/1.1\r\n${H}Content-Length: 5\r\n\r\nhello${smuggled}`,
      `GET /first HTTP/1.1\r\n${H}\r\n${smuggled}`,
      `POST /first HTTP/1.1\r\n${H}Content-Length: 0\r\n\r\n${smuggled}`,
    ];
    for (const request of requests) {
      const answer = await exchange(server.port, request);
      assert.equal(answer.match(/HTTP\/1\.1 /g)?.length, 1, "one answer per connection");
    }
    assert.deepEqual(seen, ["POST /first hello", "GET /first ", "POST /first "]);
  });
});

const INTERESTING = [" ", "\t", "\r", "\n", "\r\n", ":", ",", "\x00", "\x7f", "\xff", "0", "9", "-", "chunked"];

/** `request` with a few bytes replaced, inserted or deleted. */
function mutate(request: string, next: () => number): string {
  let text = request;
  const edits = 1 + Math.floor(next() * 3);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(next() * text.length);
    const piece = next() < 0.5
      ? INTERESTING[Math.floor(next() * INTERESTING.length)]
      : String.fromCharCode(next() * 256);
    const kind = next();
    if (kind < 0.4) text = text.slice(0, at) + piece + text.slice(at + 1);
    else if (kind < 0.8) text = text.slice(0, at) + piece + text.slice(at);
    else text = text.slice(0, at) + text.slice(at + 1);
  }
  return text;
}

Deno.test("requests mutated at random get an answer or a close, never a 500, and the handler sees only whole ones", async () => {
  const seed = 20261201;
  const next = seededRandom(seed);
  const base = `POST /schedule.json HTTP/1.1\r\n${H}Content-Type: a/b\r\nContent-Length: 5\r\n\r\nhello`;
  // A mutation can leave a head that never ends or a body never whole: the short deadline closes those.
  await withRecordingServer(async (server, seen) => {
    const allowed = new Set([0, 200, 400, 411, 413, 417, 431, 501, 505]);
    let answered200 = 0;
    const mutations = Array.from({ length: 240 }, () => mutate(base, next));
    for (let i = 0; i < mutations.length; i += 16) {
      const answers = await Promise.all(mutations.slice(i, i + 16).map((request) => exchange(server.port, request)));
      answers.forEach((answer, j) => {
        const status = statusOf(answer);
        assert.ok(
          allowed.has(status),
          `seed ${seed}, mutation ${i + j}: ${status} for ${JSON.stringify(mutations[i + j])}`,
        );
        if (status === 200) answered200++;
      });
    }
    assert.ok(answered200 > 0 && answered200 < mutations.length, `a mix of accepted and refused: ${answered200}`);
    assert.equal(seen.length, answered200, "the handler was called exactly for the requests answered 200");
    assert.equal(statusOf(await exchange(server.port, base)), 200, "still serving");
  }, 300);
});
