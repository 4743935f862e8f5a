import assert from "node:assert/strict";
import { FetchError } from "../../src/errors.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { downloaderWith, echoOf } from "./support.ts";

Deno.test("a chain of redirects is followed to its end and recorded in order", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const response = await downloader.fetch(new Request(site.url + "redirect/3"));
    assert.equal(response.status, 200);
    assert.equal(response.url, site.url + "echo");
    assert.deepEqual(response.redirects, [
      site.url + "redirect/3",
      site.url + "redirect/2",
      site.url + "redirect/1",
    ]);
    assert.equal(response.request.url, site.url + "redirect/3");
    assert.equal(echoOf(response).path, "/echo");
    assert.ok(response.latency > 0);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("more redirects than maxRedirects fail with reason redirects", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ maxRedirects: 2 });
  try {
    const ok = await downloader.fetch(new Request(site.url + "redirect/2"));
    assert.equal(ok.status, 200);
    await assert.rejects(
      downloader.fetch(new Request(site.url + "redirect/3")),
      (error: unknown) => error instanceof FetchError && error.reason === "redirects",
    );
    assert.equal(site.hits("/echo"), 1, "the third hop is not fetched");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a redirect loop ends in a redirects error after maxRedirects hops", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ maxRedirects: 5 });
  try {
    await assert.rejects(
      downloader.fetch(new Request(site.url + "redirect-loop")),
      (error: unknown) => error instanceof FetchError && error.reason === "redirects",
    );
    assert.equal(site.hits("/redirect-loop"), 6);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a 303 turns a POST into a GET without its body", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const request = new Request({
      url: site.url + "see-other",
      method: "POST",
      body: "name=value",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    const echo = echoOf(await downloader.fetch(request));
    assert.equal(echo.method, "GET");
    assert.equal(echo.body, "");
    assert.equal(echo.headers["content-type"], undefined);
    assert.equal(site.requests[0].method, "POST");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a 302 turns a POST into a GET but a 307 and a 308 keep method and body", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const post = (status: number) =>
      new Request({ url: `${site.url}redirect/1?status=${status}`, method: "POST", body: "payload" });
    const after302 = echoOf(await downloader.fetch(post(302)));
    assert.deepEqual([after302.method, after302.body], ["GET", ""]);
    const after307 = echoOf(await downloader.fetch(post(307)));
    assert.deepEqual([after307.method, after307.body], ["POST", "payload"]);
    const after308 = echoOf(await downloader.fetch(post(308)));
    assert.deepEqual([after308.method, after308.body], ["POST", "payload"]);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("with allowRedirects false or meta dont_redirect the 3xx response itself is returned", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const notFollowed = await downloader.fetch(new Request({ url: site.url + "redirect/2", allowRedirects: false }));
    assert.equal(notFollowed.status, 302);
    assert.equal(notFollowed.headers.get("location"), "/redirect/1");
    assert.equal(notFollowed.url, site.url + "redirect/2");
    assert.deepEqual(notFollowed.redirects, []);
    const byMeta = await downloader.fetch(new Request({ url: site.url + "see-other", meta: { dont_redirect: true } }));
    assert.equal(byMeta.status, 303);
    assert.equal(site.hits("/redirect/1") + site.hits("/echo"), 0);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("an absolute Location on another host is followed there", async () => {
  const first = await startFixtureSite();
  const second = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const target = encodeURIComponent(second.url + "echo?from=first");
    const response = await downloader.fetch(new Request(`${first.url}redirect-to?url=${target}`));
    assert.equal(response.url, second.url + "echo?from=first");
    assert.deepEqual(echoOf(response).query, { from: "first" });
    assert.equal(second.hits("/echo"), 1);
  } finally {
    downloader.close();
    await first.close();
    await second.close();
  }
});
