/**
 * The HTTP/2 client keeps a connection per origin, but not one for every origin it has talked to: past its bound,
 * opening a connection closes the least recently used idle ones, and never one carrying a request. Against Node's
 * node:http2 server (plain h2c, Node 22 in a process of its own) listening on 0.0.0.0, so each address of
 * 127.0.0.0/8 is an origin of its own; the connections are counted by the server and by the kernel. About 2 s.
 */
import assert from "node:assert/strict";
import { alpnHttpClient } from "../../src/runtime/h2/client.ts";
import type { HttpClient } from "../../src/runtime/types.ts";
import { startH2Site } from "../helpers/h2_server.ts";
import { establishedTo } from "../helpers/tcp_sockets.ts";

const KEPT = 4;

async function get(client: HttpClient, url: string): Promise<string> {
  const response = await client.fetch(new URL(url), { method: "GET", headers: new Headers(), http2: "only" });
  assert.equal(response.status, 200, url);
  assert.equal(response.protocol, "h2");
  return new TextDecoder().decode(await response.bytes(1 << 20));
}

Deno.test("HTTP/2 connections past the bound are closed idle ones first, never one in use", async () => {
  const site = await startH2Site({ anyLoopback: true, delayMs: 200 });
  const client = alpnHttpClient({
    h1Dial: () => Promise.reject(new Error("http2 is only: no HTTP/1.1 connection is opened")),
    maxSessions: KEPT,
  });
  const origin = (i: number) => `http://127.4.0.${i + 1}:${site.port}/`;
  try {
    // Six origins at once: six connections, each carrying a request, none closed for the bound.
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => get(client, `${origin(i)}item/${i}`)));
    first.forEach((body, i) => assert.match(body, new RegExp(`Item ${i}`)));
    assert.deepEqual(client.connections!(), { idle: 6, busy: 0, origins: 6 });
    // A seventh: opening it closes the three idle ones used least recently, leaving the bound.
    await get(client, `${origin(6)}item/6`);
    assert.deepEqual(client.connections!(), { idle: KEPT, busy: 0, origins: KEPT });
    assert.equal(await establishedTo(site.port), KEPT, "the kernel agrees");
    // The most recently used (3, 4, 5, 6) are the ones kept: 5 again needs no new connection, 0 does.
    await get(client, `${origin(5)}item/5`);
    assert.equal((await site.seen()).connections, 7);
    await get(client, `${origin(0)}item/0`);
    assert.equal((await site.seen()).connections, 8);
    // Twelve origins one after another: still at most KEPT open.
    for (let i = 10; i < 22; i++) await get(client, `${origin(i)}item/${i}`);
    assert.ok(client.connections!().idle <= KEPT);
    assert.ok(await establishedTo(site.port) <= KEPT);
  } finally {
    client.close();
    await site.close();
  }
});
