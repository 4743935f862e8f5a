import assert from "node:assert/strict";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startProxy } from "../helpers/proxy.ts";
import { downloaderWith, echoOf, onHost } from "./support.ts";

Deno.test("requests go through the proxy in proxies", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  const downloader = downloaderWith({ proxies: [proxy.url] });
  try {
    const response = await downloader.fetch(new Request(site.url + "echo?via=proxy"));
    assert.equal(response.status, 200);
    assert.deepEqual(echoOf(response).query, { via: "proxy" });
    assert.deepEqual(proxy.requests, [site.url + "echo?via=proxy"]);
    assert.equal(site.hits("/echo"), 1);
    assert.equal(downloader.proxyUsed(response), proxy.url);
  } finally {
    downloader.close();
    await proxy.close();
    await site.close();
  }
});

Deno.test("per request the proxies take turns", async () => {
  const site = await startFixtureSite();
  const first = await startProxy();
  const second = await startProxy();
  const downloader = downloaderWith({ proxies: [first.url, second.url], proxyRotation: "per_request" });
  try {
    const used: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++) used.push(downloader.proxyUsed(await downloader.fetch(new Request(site.url + "echo"))));
    assert.deepEqual(used, [first.url, second.url, first.url, second.url]);
    assert.equal(first.requests.length, 2);
    assert.equal(second.requests.length, 2);
  } finally {
    downloader.close();
    await first.close();
    await second.close();
    await site.close();
  }
});

Deno.test("per domain each host stays on one proxy and two hosts use different ones", async () => {
  const site = await startFixtureSite();
  const first = await startProxy();
  const second = await startProxy();
  const downloader = downloaderWith({ proxies: [first.url, second.url], proxyRotation: "per_domain" });
  try {
    const ip = site.url + "echo";
    const named = onHost(site.url, "localhost") + "echo";
    const used: Record<string, Set<string | undefined>> = { ip: new Set(), named: new Set() };
    for (const [key, url] of [["ip", ip], ["named", named], ["ip", ip], ["ip", ip], ["named", named]]) {
      used[key].add(downloader.proxyUsed(await downloader.fetch(new Request(url))));
    }
    assert.equal(used.ip.size, 1);
    assert.equal(used.named.size, 1);
    assert.notEqual([...used.ip][0], [...used.named][0]);
    assert.deepEqual([first.requests.length, second.requests.length].sort(), [2, 3]);
    for (const proxy of [first, second]) {
      assert.equal(new Set(proxy.requests.map((url) => new URL(url).hostname)).size, 1, "one host per proxy");
    }
  } finally {
    downloader.close();
    await first.close();
    await second.close();
    await site.close();
  }
});

Deno.test("meta proxy picks the proxy for one request, and an empty one means none", async () => {
  const site = await startFixtureSite();
  const listed = await startProxy();
  const chosen = await startProxy();
  const downloader = downloaderWith({ proxies: [listed.url] });
  try {
    const viaMeta = await downloader.fetch(new Request({ url: site.url + "echo", meta: { proxy: chosen.url } }));
    assert.equal(downloader.proxyUsed(viaMeta), chosen.url);
    const direct = await downloader.fetch(new Request({ url: site.url + "echo", meta: { proxy: "" } }));
    assert.equal(downloader.proxyUsed(direct), undefined);
    await downloader.fetch(new Request({ url: site.url + "echo", meta: { proxy: null } }));
    assert.equal(chosen.requests.length, 1);
    assert.equal(listed.requests.length, 0);
    assert.equal(site.hits("/echo"), 3);
  } finally {
    downloader.close();
    await listed.close();
    await chosen.close();
    await site.close();
  }
});

Deno.test("a proxy that wants a login gets it from the proxy URL", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy({ user: "proxyuser", password: "proxy pass" });
  const withLogin = new URL(proxy.url);
  withLogin.username = "proxyuser";
  withLogin.password = encodeURIComponent("proxy pass");
  const downloader = downloaderWith({ proxies: [withLogin.href] });
  const anonymous = downloaderWith({ proxies: [proxy.url] });
  try {
    const response = await downloader.fetch(new Request(site.url + "echo"));
    assert.equal(response.status, 200);
    assert.equal(echoOf(response).headers["proxy-authorization"], undefined, "the login stays with the proxy");
    const refused = await anonymous.fetch(new Request(site.url + "echo"));
    assert.equal(refused.status, 407);
    assert.equal(proxy.refused.length, 1);
    assert.equal(site.hits("/echo"), 1);
  } finally {
    downloader.close();
    anonymous.close();
    await proxy.close();
    await site.close();
  }
});

Deno.test("nextProxy offers another proxy to retry a blocked request through", async () => {
  const site = await startFixtureSite();
  const first = await startProxy();
  const second = await startProxy();
  const downloader = downloaderWith({ proxies: [first.url, second.url], proxyRotation: "per_domain" });
  try {
    const request = new Request(site.url + "echo");
    const blocked = await downloader.fetch(request);
    const used = downloader.proxyUsed(blocked)!;
    const other = downloader.nextProxy(request, [used]);
    assert.ok(other && other !== used);
    const retried = await downloader.fetch(request.replace({ meta: { proxy: other } }));
    assert.equal(downloader.proxyUsed(retried), other);
    assert.equal(downloader.proxyFor(request), other, "per domain the host moved to the new proxy");
    assert.equal(downloader.nextProxy(request, [first.url, second.url]), undefined);
    assert.equal(first.requests.length + second.requests.length, 2);
  } finally {
    downloader.close();
    await first.close();
    await second.close();
    await site.close();
  }
});
