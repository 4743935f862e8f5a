import assert from "node:assert/strict";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { downloaderWith, echoOf, onHost } from "./support.ts";

const LOGIN = { user: "user", password: "pass" };
const basic = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

Deno.test("httpAuth logs in to the host it names and is not sent to another host", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ httpAuth: { "127.0.0.1": LOGIN } });
  try {
    const inside = await downloader.fetch(new Request(site.url + "auth/basic"));
    assert.equal(inside.status, 200);
    const other = await downloader.fetch(new Request(onHost(site.url, "localhost") + "auth/basic"));
    assert.equal(other.status, 401);
    assert.equal(site.requests[1].headers.get("authorization"), null);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("httpAuth credentials do not follow a redirect to another host", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ httpAuth: { "127.0.0.1": LOGIN } });
  try {
    const elsewhere = encodeURIComponent(onHost(site.url, "localhost") + "echo");
    const response = await downloader.fetch(new Request(`${site.url}redirect-to?url=${elsewhere}`));
    assert.equal(new URL(response.url).hostname, "localhost");
    assert.equal(echoOf(response).headers["authorization"], undefined);
    assert.equal(site.requests[0].headers.get("authorization"), basic("user", "pass"));
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("after a redirect each host gets its own httpAuth entry", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({
    httpAuth: { "127.0.0.1": { user: "a", password: "1" }, "localhost": { user: "b", password: "2" } },
  });
  try {
    const elsewhere = encodeURIComponent(onHost(site.url, "localhost") + "echo");
    const response = await downloader.fetch(new Request(`${site.url}redirect-to?url=${elsewhere}`));
    assert.equal(echoOf(response).headers["authorization"], basic("b", "2"));
    assert.equal(site.requests[0].headers.get("authorization"), basic("a", "1"));
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a request's own auth logs in and goes only to its own host", async () => {
  const site = await startFixtureSite({ basicAuth: { user: "ann", password: "secret" } });
  const downloader = downloaderWith();
  try {
    const right = await downloader.fetch(
      new Request({ url: site.url + "auth/basic", auth: { user: "ann", password: "secret" } }),
    );
    assert.equal(right.status, 200);
    const wrong = await downloader.fetch(
      new Request({ url: site.url + "auth/basic", auth: { user: "ann", password: "x" } }),
    );
    assert.equal(wrong.status, 401);
    const elsewhere = encodeURIComponent(onHost(site.url, "localhost") + "echo");
    const redirected = await downloader.fetch(
      new Request({ url: `${site.url}redirect-to?url=${elsewhere}`, auth: { user: "ann", password: "x" } }),
    );
    assert.equal(echoOf(redirected).headers["authorization"], undefined);
    const sameHost = await downloader.fetch(
      new Request({ url: `${site.url}redirect-to?url=%2Fecho`, auth: { user: "ann", password: "x" } }),
    );
    assert.equal(echoOf(sameHost).headers["authorization"], basic("ann", "x"));
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a request's auth wins over httpAuth, and meta http_user and http_pass work like auth", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ httpAuth: { "127.0.0.1": { user: "crawl", password: "wide" } } });
  try {
    const byAuth = await downloader.fetch(new Request({ url: site.url + "auth/basic", auth: LOGIN }));
    assert.equal(byAuth.status, 200);
    const byMeta = await downloader.fetch(
      new Request({ url: site.url + "auth/basic", meta: { http_user: "user", http_pass: "pass" } }),
    );
    assert.equal(byMeta.status, 200);
    const crawlWide = await downloader.fetch(new Request(site.url + "auth/basic"));
    assert.equal(crawlWide.status, 401);
    const metaElsewhere = encodeURIComponent(onHost(site.url, "localhost") + "echo");
    const redirected = await downloader.fetch(
      new Request({ url: `${site.url}redirect-to?url=${metaElsewhere}`, meta: { http_user: "u", http_pass: "p" } }),
    );
    assert.equal(echoOf(redirected).headers["authorization"], undefined);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a request's own Authorization header is sent as given and dropped on a redirect to another host", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ httpAuth: { "127.0.0.1": LOGIN } });
  try {
    const elsewhere = encodeURIComponent(onHost(site.url, "localhost") + "echo");
    const response = await downloader.fetch(
      new Request({ url: `${site.url}redirect-to?url=${elsewhere}`, headers: { Authorization: "Bearer token" } }),
    );
    assert.equal(site.requests[0].headers.get("authorization"), "Bearer token");
    assert.equal(echoOf(response).headers["authorization"], undefined);
  } finally {
    downloader.close();
    await site.close();
  }
});
