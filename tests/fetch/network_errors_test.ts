import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { FetchError } from "../../src/errors.ts";
import { Request } from "../../src/spider/request.ts";
import { type FixtureSite, startFixtureSite } from "../helpers/fixture_site.ts";
import { freePort } from "../helpers/free_port.ts";
import { downloaderWith, textOf } from "./support.ts";

/** A TCP server on 127.0.0.1 that does `onRequest` with each connection once the request arrives. */
async function rawServer(onRequest: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", () => onRequest(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function failure(url: string): Promise<FetchError> {
  const downloader = downloaderWith({ retries: 0, timeout: 5 });
  try {
    await downloader.fetch(new Request({ url }));
  } catch (error) {
    assert.ok(error instanceof FetchError, String(error));
    return error;
  } finally {
    downloader.close();
  }
  throw new Error(`${url} was fetched`);
}

Deno.test("a refused connection says so, naming the address", async () => {
  const port = await freePort();
  const error = await failure(`http://127.0.0.1:${port}/`);
  assert.equal(error.reason, "network");
  assert.equal(
    error.message,
    `fetching http://127.0.0.1:${port}/ failed: connection refused by 127.0.0.1:${port} (nothing listens there, or a firewall said no)`,
  );
});

Deno.test("a server that closes the connection without answering is named as such", async () => {
  const server = await rawServer((socket) => socket.end());
  try {
    const error = await failure(`http://127.0.0.1:${server.port}/`);
    assert.match(
      error.message,
      new RegExp(`failed: 127\\.0\\.0\\.1:${server.port} closed the connection without an answer$`),
    );
  } finally {
    await server.close();
  }
});

Deno.test("a connection reset by the server is named as such", async () => {
  const server = await rawServer((socket) => socket.resetAndDestroy());
  try {
    const error = await failure(`http://127.0.0.1:${server.port}/`);
    assert.match(error.message, new RegExp(`failed: connection reset by 127\\.0\\.0\\.1:${server.port}$`));
  } finally {
    await server.close();
  }
});

Deno.test("https to a server that speaks plain HTTP is a failed TLS handshake", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    const error = await failure(`https://127.0.0.1:${site.port}/`);
    assert.match(error.message, new RegExp(`failed: TLS handshake with 127\\.0\\.0\\.1:${site.port} failed: `));
  } finally {
    await site.close();
  }
});

/** Ports on the Fetch standard's bad-port list, tried in turn: another test may hold one. */
const BAD_PORTS = [6000, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080, 4190, 5060, 5061, 6566];

async function siteOnBadPort(): Promise<FixtureSite> {
  for (const port of BAD_PORTS) {
    try {
      return await startFixtureSite({ books: 3, port });
    } catch {
      // in use: the next one
    }
  }
  throw new Error("no port of the bad-port list is free");
}

Deno.test("a site on a port browsers block (6000, 10080, ...) can be crawled", async () => {
  const site = await siteOnBadPort();
  const downloader = downloaderWith({ cookies: true });
  try {
    const page = await downloader.fetch(new Request({ url: `${site.url}shop/` }));
    assert.equal(page.status, 200);
    assert.match(textOf(page), /product_pod/);
    // Cookies and compression work there as anywhere.
    await downloader.fetch(new Request({ url: `${site.url}cookies/set?a=1&b=2` }));
    const shown = await downloader.fetch(new Request({ url: `${site.url}cookies/show` }));
    assert.deepEqual(JSON.parse(textOf(shown)).cookies, { a: "1", b: "2" });
    const gzip = await downloader.fetch(new Request({ url: `${site.url}gzip` }));
    assert.equal(gzip.status, 200);
    assert.match(textOf(gzip), /<h1>Compressed page<\/h1>/);
    const missing = await downloader.fetch(new Request({ url: `${site.url}status/204` }));
    assert.equal(missing.status, 204);
  } finally {
    downloader.close();
    await site.close();
  }
});
