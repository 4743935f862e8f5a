/**
 * The downloader's HTTP clients, one per proxy, stay within a bound however many distinct proxies requests name:
 * a queue whose entries each carry a meta `proxy` of their own no longer grows a connection pool per entry.
 */
import assert from "node:assert/strict";
import { ClientPool, MAX_CLIENTS } from "../../src/fetch/client_pool.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startProxy } from "../helpers/proxy.ts";
import { downloaderWith } from "./support.ts";

Deno.test("requests through many distinct proxies keep the clients open within the bound, every request answered", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  const downloader = downloaderWith({});
  try {
    // 300 proxy URLs that differ only in their login (the test proxy needs none): 300 distinct clients' worth.
    const proxies = Array.from({ length: 300 }, (_, i) => proxy.url.replace("http://", `http://user${i}:pw@`));
    for (let start = 0; start < proxies.length; start += 30) {
      const batch = proxies.slice(start, start + 30).map((each, i) =>
        downloader.fetch(new Request({ url: `${site.url}echo?n=${start + i}`, meta: { proxy: each } }))
      );
      for (const response of await Promise.all(batch)) assert.equal(response.status, 200);
      assert.ok(downloader.openClients <= MAX_CLIENTS, `${downloader.openClients} clients open`);
    }
    assert.equal(proxy.requests.length, proxies.length);
  } finally {
    downloader.close();
    await proxy.close();
    await site.close();
  }
});

Deno.test("the pool closes the least recently used idle client first, and never one in use", () => {
  const pool = new ClientPool(2);
  const a = pool.acquire("http://127.0.0.1:9/a");
  const b = pool.acquire("http://127.0.0.1:9/b");
  a.release();
  b.release();
  // a is used again, so b is now the least recently used; c pushes the pool over its bound.
  pool.acquire("http://127.0.0.1:9/a").release();
  const c = pool.acquire("http://127.0.0.1:9/c");
  assert.equal(pool.size, 2);
  assert.strictEqual(pool.acquire("http://127.0.0.1:9/a").client, a.client, "a was kept");
  // In use, c and a may take the pool over its bound rather than be closed under their requests.
  const d = pool.acquire(undefined);
  assert.equal(pool.size, 3);
  c.release();
  assert.equal(pool.size, 2, "c, idle again, is closed");
  d.release();
  pool.close();
  assert.equal(pool.size, 0);
});
