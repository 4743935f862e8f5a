/**
 * A small shop served by Node's own node:http2 server, run by Node 22 for tests/helpers/h2_server.ts. Its options
 * come as JSON in the last argument; it prints its port and a control port (plain HTTP/1.1, for the test to read
 * without trusting the test CA) on the first line of stdout. The control port's GET /log answers what the site saw:
 * every request's path, HTTP version, connection number and Cookie header, and the most streams any one connection
 * had open at once.
 *
 * Options: cert and key (PEM file paths; none: plain h2c), allowHttp1 (ALPN may pick http/1.1), http1Only (no h2
 * at all: a node:https server), maxStreams (SETTINGS_MAX_CONCURRENT_STREAMS), goawayAfter (after that many requests
 * on a connection, GOAWAY with the last of them as the last stream processed: later streams are never answered),
 * items (how many item pages the shop links), delayMs (each answer waits this long), anyLoopback (listen on 0.0.0.0,
 * so every address of 127.0.0.0/8 reaches it, as many origins; connections from elsewhere are closed at once).
 */
import http2 from "node:http2";
import https from "node:https";
import http from "node:http";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const options = JSON.parse(process.argv.at(-1));
const items = options.items ?? 20;
const log = [];
let connections = 0;
let maxOpen = 0;

function shop() {
  const links = Array.from({ length: items }, (_, i) => `<li><a href="/item/${i + 1}">item ${i + 1}</a></li>`);
  return `<html><body><h1>Shop</h1><ul>${links.join("")}</ul></body></html>`;
}

/** Answers one request: `send(status, headers, body)`; `trailers` when the path asks for them. */
function answer(path, cookie, send) {
  if (path === "/" || path === "/shop/") return send(200, { "content-type": "text/html" }, shop());
  const item = /^\/item\/(\d+)$/.exec(path);
  if (item) return send(200, { "content-type": "text/html" }, `<html><h1>Item ${item[1]}</h1></html>`);
  if (path === "/login") {
    return send(302, { "set-cookie": "session=opened; Path=/", location: "/account" }, "");
  }
  if (path === "/account") return send(200, { "content-type": "text/plain" }, `cookie: ${cookie ?? "none"}`);
  if (path === "/gzip") {
    return send(200, { "content-type": "text/plain", "content-encoding": "gzip" }, gzipSync("unzipped over h2"));
  }
  if (path === "/big") return send(200, { "content-type": "text/plain" }, "x".repeat(300_000));
  // A server that hangs: the request is taken and never answered.
  if (path === "/hang") return;
  if (path === "/trailers") return send(200, { "content-type": "text/plain" }, "with trailers", true);
  return send(404, { "content-type": "text/plain" }, "not here");
}

function delayed(run) {
  if (options.delayMs) setTimeout(run, options.delayMs);
  else run();
}

let server;
if (options.http1Only) {
  server = https.createServer({ key: readFileSync(options.key), cert: readFileSync(options.cert) }, (req, res) => {
    log.push({ path: req.url, version: req.httpVersion, connection: 0, cookie: req.headers.cookie ?? null });
    delayed(() =>
      answer(req.url, req.headers.cookie, (status, headers, body) => {
        res.writeHead(status, headers);
        res.end(body);
      })
    );
  });
} else {
  const settings = options.maxStreams ? { maxConcurrentStreams: options.maxStreams } : {};
  const serverOptions = { settings, allowHTTP1: options.allowHttp1 ?? false };
  server = options.cert
    ? http2.createSecureServer({ ...serverOptions, key: readFileSync(options.key), cert: readFileSync(options.cert) })
    : http2.createServer(serverOptions);
  server.on("session", (session) => {
    session.number = ++connections;
    session.open = 0;
    session.served = 0;
  });
  server.on("stream", (stream, headers) => {
    const session = stream.session;
    session.open++;
    maxOpen = Math.max(maxOpen, session.open);
    stream.once("close", () => session.open--);
    // A client's RST_STREAM (a cancelled request, or streams it gave up after a GOAWAY) is no fault of the site's.
    stream.on("error", () => {});
    const path = headers[":path"];
    session.served++;
    log.push({ path, version: "2.0", connection: session.number, cookie: headers.cookie ?? null, stream: stream.id });
    if (options.goawayAfter && session.served === options.goawayAfter) {
      // The streams the client opened after this one are never processed: the client must send them again.
      session.goaway(http2.constants.NGHTTP2_NO_ERROR, stream.id);
    } else if (options.goawayAfter && session.served > options.goawayAfter) return;
    delayed(() =>
      answer(path, headers.cookie, (status, head, body, trailers) => {
        if (stream.destroyed) return;
        stream.respond({ ":status": status, ...head }, { waitForTrailers: trailers === true });
        if (trailers) stream.once("wantTrailers", () => stream.sendTrailers({ "x-checksum": "abc" }));
        stream.end(body);
      })
    );
  });
  // Requests that came as HTTP/1.1 (allowHttp1): answered by the compatibility API, which then sees the HTTP/2
  // streams too (and would send trailers of its own).
  if (options.allowHttp1) {
    server.on("request", (req, res) => {
      if (req.httpVersion === "2.0") return;
      log.push({ path: req.url, version: req.httpVersion, connection: 0, cookie: req.headers.cookie ?? null });
      delayed(() =>
        answer(req.url, req.headers.cookie, (status, headers, body) => {
          res.writeHead(status, headers);
          res.end(body);
        })
      );
    });
  }
}
if (options.anyLoopback) {
  server.on("connection", (socket) => {
    if (!socket.remoteAddress?.replace(/^::ffff:/, "").startsWith("127.")) socket.destroy();
  });
}
const control = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ log, maxOpen, connections }));
});
server.listen(
  0,
  options.anyLoopback ? "0.0.0.0" : "127.0.0.1",
  () => control.listen(0, "127.0.0.1", () => console.log(`${server.address().port} ${control.address().port}`)),
);
