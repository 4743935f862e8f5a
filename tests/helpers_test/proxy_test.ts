import assert from "node:assert/strict";
import { connect } from "node:net";
import { type HttpResponse, runtime } from "../../src/runtime/mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startProxy } from "../helpers/proxy.ts";

/** Opens a CONNECT tunnel by hand, sends one GET through it, and returns everything that came back. */
function throughTunnel(proxyPort: number, target: string, proxyAuthorization?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxyPort, "127.0.0.1");
    let received = "";
    let tunnelled = false;
    socket.on("connect", () => {
      const auth = proxyAuthorization ? `Proxy-Authorization: ${proxyAuthorization}\r\n` : "";
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString();
      if (!tunnelled && received.startsWith("HTTP/1.1 200")) {
        tunnelled = true;
        socket.write(`GET /echo?via=tunnel HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
  });
}

const GET = { method: "GET", headers: new Headers() };

/** A body read whole (1 MB at most) as JSON. */
async function json(response: HttpResponse): Promise<{ query: unknown; headers: Record<string, string> }> {
  return JSON.parse(new TextDecoder().decode(await response.bytes(1_000_000)));
}

Deno.test("Deno's fetch through runtime.httpClient really goes through the proxy", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  const client = runtime.httpClient({ proxy: proxy.url });
  try {
    const response = await client.fetch(new URL(`${site.url}echo?via=proxy`), {
      method: "GET",
      headers: new Headers({ "x-test": "1" }),
    });
    assert.equal(response.status, 200);
    const echoed = await json(response);
    assert.deepEqual(echoed.query, { via: "proxy" });
    assert.equal(echoed.headers["x-test"], "1");
    assert.deepEqual(proxy.requests, [`${site.url}echo?via=proxy`]);
    assert.equal(site.hits("/echo"), 1);
  } finally {
    client.close();
    await proxy.close();
    await site.close();
  }
});

Deno.test("a fetch without the proxy does not reach the proxy", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  const client = runtime.httpClient({});
  try {
    await (await client.fetch(new URL(`${site.url}echo`), GET)).bytes(1_000_000);
    assert.deepEqual(proxy.requests, []);
    assert.equal(site.hits("/echo"), 1);
  } finally {
    client.close();
    await proxy.close();
    await site.close();
  }
});

Deno.test("a proxy with a login refuses requests without it and relays those with it", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy({ user: "scout", password: "p@ss word" });
  const anonymous = runtime.httpClient({ proxy: proxy.url });
  const wrong = runtime.httpClient({ proxy: `http://scout:nope@127.0.0.1:${proxy.port}` });
  const right = runtime.httpClient({
    proxy: `http://scout:${encodeURIComponent("p@ss word")}@127.0.0.1:${proxy.port}`,
  });
  try {
    const refused = await anonymous.fetch(new URL(`${site.url}echo`), GET);
    assert.equal(refused.status, 407);
    assert.equal(refused.headers.get("proxy-authenticate"), 'Basic realm="test proxy"');
    await refused.bytes(1_000_000);
    const denied = await wrong.fetch(new URL(`${site.url}echo`), GET);
    assert.equal(denied.status, 407);
    await denied.bytes(1_000_000);
    assert.equal(site.hits("/echo"), 0);

    const granted = await right.fetch(new URL(`${site.url}echo`), GET);
    assert.equal(granted.status, 200);
    const echoed = await json(granted);
    assert.equal(echoed.headers["proxy-authorization"], undefined, "the login stops at the proxy");
    assert.deepEqual(proxy.requests, [`${site.url}echo`]);
    assert.deepEqual(proxy.refused, [`${site.url}echo`, `${site.url}echo`]);
  } finally {
    for (const client of [anonymous, wrong, right]) client.close();
    await proxy.close();
    await site.close();
  }
});

Deno.test("CONNECT opens a tunnel to the target", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  try {
    const answer = await throughTunnel(proxy.port, `127.0.0.1:${site.port}`);
    assert.match(answer, /^HTTP\/1.1 200 Connection Established\r\n\r\nHTTP\/1.1 200 OK/);
    assert.match(answer, /"via": "tunnel"/);
    assert.deepEqual(proxy.requests, [`127.0.0.1:${site.port}`]);
  } finally {
    await proxy.close();
    await site.close();
  }
});

Deno.test("CONNECT without the proxy's login is refused with 407", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy({ user: "u", password: "p" });
  try {
    const refused = await throughTunnel(proxy.port, `127.0.0.1:${site.port}`);
    assert.match(refused, /^HTTP\/1.1 407 /);
    const granted = await throughTunnel(proxy.port, `127.0.0.1:${site.port}`, `Basic ${btoa("u:p")}`);
    assert.match(granted, /"via": "tunnel"/);
    assert.equal(site.hits("/echo"), 1);
  } finally {
    await proxy.close();
    await site.close();
  }
});

Deno.test("an https fetch through the proxy asks it for a CONNECT tunnel", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  const client = runtime.httpClient({ proxy: proxy.url });
  try {
    // The site speaks plain HTTP, so the TLS handshake inside the tunnel fails; the tunnel itself is the point.
    await assert.rejects(client.fetch(new URL(`https://127.0.0.1:${site.port}/echo`), GET));
    assert.deepEqual(proxy.requests, [`127.0.0.1:${site.port}`]);
  } finally {
    client.close();
    await proxy.close();
    await site.close();
  }
});
