/**
 * The downloader with the `hosts` setting: a host's own headers, user agent, timeout and proxies, the rest of the
 * crawl's hosts as before. Two hosts of one fixture site: 127.0.0.1 and localhost.
 */
import assert from "node:assert/strict";
import { FetchError } from "../../src/errors.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startProxy } from "../helpers/proxy.ts";
import { downloaderWith, echoOf, onHost } from "./support.ts";

Deno.test("a host's entry sets its user agent and headers, and a redirect to another host takes that host's", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({
    userAgent: "crawl/1",
    hosts: { localhost: { user_agent: "api-client/2", default_headers: { "x-api-key": "k" } } },
  });
  try {
    const named = echoOf(await downloader.fetch(new Request(onHost(site.url, "localhost") + "echo")));
    assert.equal(named.headers["user-agent"], "api-client/2");
    assert.equal(named.headers["x-api-key"], "k");
    assert.equal(named.headers["accept"], undefined, "the entry's default_headers replace the crawl's");
    const plain = echoOf(await downloader.fetch(new Request(site.url + "echo")));
    assert.equal(plain.headers["user-agent"], "crawl/1");
    assert.equal(plain.headers["x-api-key"], undefined);
    const target = encodeURIComponent(site.url + "echo");
    const redirected = echoOf(
      await downloader.fetch(new Request(onHost(site.url, "localhost") + `redirect-to?url=${target}`)),
    );
    assert.equal(redirected.headers["user-agent"], "crawl/1");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a host's entry sets its timeout and its proxies; other hosts keep the crawl's", async () => {
  const site = await startFixtureSite();
  const proxy = await startProxy();
  const downloader = downloaderWith({
    timeout: 30,
    hosts: { localhost: { timeout: 0.3, proxies: [proxy.url] } },
  });
  try {
    const named = onHost(site.url, "localhost");
    const response = await downloader.fetch(new Request(named + "echo"));
    assert.equal(downloader.proxyUsed(response), proxy.url);
    assert.deepEqual(proxy.requests, [named + "echo"]);
    const direct = await downloader.fetch(new Request(site.url + "echo"));
    assert.equal(downloader.proxyUsed(direct), undefined);
    const error = await downloader.fetch(new Request(named + "hang")).then(() => undefined, (error) => error);
    assert.ok(error instanceof FetchError);
    assert.equal(error.reason, "timeout");
    assert.match(error.message, /within 0\.3 s/);
  } finally {
    downloader.close();
    await proxy.close();
    await site.close();
  }
});
