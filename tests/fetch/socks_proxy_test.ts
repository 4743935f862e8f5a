/**
 * SOCKS proxies in `proxies` and meta `proxy`, against real ones on 127.0.0.1: microsocks (SOCKS5, with a login)
 * and a SOCKS4a server of the test's own. That a request went through the proxy shows when the proxy dies: the next one fails, naming
 * the proxy.
 */
import assert from "node:assert/strict";
import { FetchError } from "../../src/errors.ts";
import { Settings } from "../../src/settings/settings.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startMicrosocks, startSocks4a } from "../helpers/socks_proxy.ts";
import { downloaderWith, echoOf, onHost } from "./support.ts";

const LOGIN = { user: "crawler", password: "s3cret pass" };

function withLogin(scheme: string, address: string, user: string, password: string): string {
  return `${scheme}://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${address}`;
}

async function failureOf(promise: Promise<unknown>): Promise<FetchError> {
  const error = await promise.then(() => undefined, (error) => error);
  assert.ok(error instanceof FetchError, `expected a FetchError, got ${error}`);
  return error;
}

Deno.test("socks5 and socks5h proxies with a login carry requests, by IP address and by host name", async () => {
  const site = await startFixtureSite();
  const proxy = await startMicrosocks(LOGIN);
  const downloaders = ["socks5", "socks5h"].map((scheme) =>
    downloaderWith({ proxies: [withLogin(scheme, proxy.address, LOGIN.user, LOGIN.password)] })
  );
  try {
    for (const downloader of downloaders) {
      for (const url of [site.url + "echo?n=1", onHost(site.url, "localhost") + "echo?n=2"]) {
        const response = await downloader.fetch(new Request(url));
        assert.equal(response.status, 200);
        assert.equal(echoOf(response).headers["proxy-authorization"], undefined);
        assert.match(downloader.proxyUsed(response)!, /^socks5h?:\/\/crawler:/);
      }
    }
    assert.equal(site.hits("/echo"), 4);
    await proxy.kill();
    // Kept connections die with the proxy; the request is sent again on a new one, which the proxy cannot take.
    const error = await failureOf(downloaders[0].fetch(new Request(site.url + "echo?n=3")));
    assert.equal(error.reason, "network");
    assert.match(error.message, new RegExp(`SOCKS proxy socks5://crawler@${proxy.address} could not be reached`));
    assert.equal(site.hits("/echo"), 4);
  } finally {
    for (const downloader of downloaders) downloader.close();
    await proxy.kill();
    await site.close();
  }
});

Deno.test("a wrong SOCKS password fails the request with one line naming the proxy, not the password", async () => {
  const site = await startFixtureSite();
  const proxy = await startMicrosocks(LOGIN);
  const wrong = downloaderWith({ proxies: [withLogin("socks5h", proxy.address, LOGIN.user, "not-it-42")] });
  const none = downloaderWith({ proxies: [`socks5h://${proxy.address}`] });
  try {
    const error = await failureOf(wrong.fetch(new Request(site.url + "echo")));
    assert.equal(error.reason, "network");
    assert.equal(
      error.message,
      `fetching ${site.url}echo failed: SOCKS proxy socks5h://crawler@${proxy.address} refused the login ` +
        "(wrong user name or password)",
    );
    assert.doesNotMatch(error.message, /not-it-42/);
    const anonymous = await failureOf(none.fetch(new Request(site.url + "echo")));
    assert.match(anonymous.message, /accepts none of the offered ways to log in \(it wants a login/);
    assert.equal(site.hits("/echo"), 0);
  } finally {
    wrong.close();
    none.close();
    await proxy.kill();
    await site.close();
  }
});

Deno.test("a socks4a proxy in meta proxy resolves the host name itself", async () => {
  const site = await startFixtureSite();
  const proxy = await startSocks4a();
  const downloader = downloaderWith({});
  try {
    const via = `socks4a://netweir@${proxy.address}`;
    const url = onHost(site.url, "localhost") + "echo?via=socks4a";
    const response = await downloader.fetch(new Request({ url, meta: { proxy: via } }));
    assert.equal(response.status, 200);
    assert.deepEqual(echoOf(response).query, { via: "socks4a" });
    assert.deepEqual(proxy.targets, [`localhost:${site.port}`], "the name went to the proxy, unresolved");
    assert.equal(downloader.proxyUsed(response), via);
    const password = await failureOf(
      downloader.fetch(new Request({ url, meta: { proxy: `socks4a://netweir:pw@${proxy.address}` } })),
    );
    assert.match(password.message, /takes a user id but no password/);
    await proxy.kill();
    const error = await failureOf(downloader.fetch(new Request({ url, meta: { proxy: via } })));
    assert.match(error.message, new RegExp(`SOCKS proxy socks4a://netweir@${proxy.address} could not be reached`));
  } finally {
    downloader.close();
    await proxy.kill();
    await site.close();
  }
});

Deno.test("per request two SOCKS proxies take turns, and a dead one fails only its own turns", async () => {
  const site = await startFixtureSite();
  const first = await startMicrosocks();
  const second = await startMicrosocks();
  const proxies = [`socks5://${first.address}`, `socks5h://${second.address}`];
  const downloader = downloaderWith({ proxies, proxyRotation: "per_request" });
  try {
    const used = [];
    for (let i = 0; i < 4; i++) used.push(downloader.proxyUsed(await downloader.fetch(new Request(site.url + "echo"))));
    assert.deepEqual(used, [...proxies, ...proxies]);
    await second.kill();
    assert.equal((await downloader.fetch(new Request(site.url + "echo"))).status, 200);
    const error = await failureOf(downloader.fetch(new Request(site.url + "echo")));
    assert.match(error.message, /SOCKS proxy socks5h:\/\/127\.0\.0\.1:\d+ could not be reached/);
    assert.equal(site.hits("/echo"), 5);
  } finally {
    downloader.close();
    await first.kill();
    await second.kill();
    await site.close();
  }
});

Deno.test("proxies takes socks5, socks5h and socks4a URLs and still refuses other schemes", () => {
  const proxies = ["socks5://a:b@127.0.0.1:1080", "socks5h://127.0.0.1:1", "socks4a://u@127.0.0.1:2"];
  assert.deepEqual(new Settings({ proxies }).resolve().proxies, proxies);
  assert.throws(
    () => new Settings({ proxies: ["socks4://127.0.0.1:1080"] }).resolve(),
    /proxies must be http:\/\/, https:\/\/, socks5:\/\/, socks5h:\/\/ or socks4a:\/\/ URLs/,
  );
});
