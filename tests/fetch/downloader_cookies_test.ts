import assert from "node:assert/strict";
import { runtime } from "../../src/runtime/mod.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { downloaderWith, echoOf, onHost, textOf } from "./support.ts";

const cookiesOf = (body: string) => JSON.parse(body).cookies as Record<string, string>;

Deno.test("cookies a site sets are sent back on later requests to it", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    await downloader.fetch(new Request(site.url + "cookies/set?session=abc&theme=dark"));
    const shown = await downloader.fetch(new Request(site.url + "cookies/show"));
    assert.deepEqual(cookiesOf(textOf(shown)), { session: "abc", theme: "dark" });
    const stored = await downloader.cookieJar!.getCookieString(site.url);
    assert.match(stored, /session=abc/);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a cookie set at the end of a redirect is kept and sent along a later redirect", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    const setter = encodeURIComponent("/cookies/set?hop=1");
    await downloader.fetch(new Request(`${site.url}redirect-to?url=${setter}`));
    const shower = encodeURIComponent("/cookies/show");
    const shown = await downloader.fetch(new Request(`${site.url}redirect-to?url=${shower}`));
    assert.deepEqual(cookiesOf(textOf(shown)), { hop: "1" });
    assert.equal(site.requests.at(-2)!.headers.get("cookie"), "hop=1", "the redirecting hop got it too");
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a cookie set by a 302 itself is stored and sent on the next hop", async () => {
  // The fixture site sets no cookie on a redirect, so this server does: /login answers 302 with Set-Cookie.
  const listener = await runtime.listen((request) => {
    const url = new URL(request.url);
    if (url.pathname === "/login") {
      const headers = new Headers({ location: "/home" });
      headers.append("set-cookie", "token=xyz; Path=/");
      headers.append("set-cookie", "lang=en; Path=/");
      return new Response(null, { status: 302, headers });
    }
    return new Response(request.headers.get("cookie") ?? "");
  }, { hostname: "127.0.0.1", port: 0 });
  const downloader = downloaderWith();
  try {
    const response = await downloader.fetch(new Request(`http://127.0.0.1:${listener.port}/login`));
    assert.equal(response.url, `http://127.0.0.1:${listener.port}/home`);
    assert.equal(textOf(response), "token=xyz; lang=en");
  } finally {
    downloader.close();
    await listener.close();
  }
});

Deno.test("cookies of one host are not sent to another", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    await downloader.fetch(new Request(site.url + "cookies/set?mine=1"));
    const elsewhere = await downloader.fetch(new Request(onHost(site.url, "localhost") + "cookies/show"));
    assert.deepEqual(cookiesOf(textOf(elsewhere)), {});
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a request's own Cookie header wins over the jar", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    await downloader.fetch(new Request(site.url + "cookies/set?jar=1"));
    const shown = await downloader.fetch(new Request({ url: site.url + "cookies/show", headers: { Cookie: "own=2" } }));
    assert.deepEqual(cookiesOf(textOf(shown)), { own: "2" });
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("meta dont_merge_cookies neither sends nor stores cookies", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    await downloader.fetch(new Request(site.url + "cookies/set?kept=1"));
    await downloader.fetch(
      new Request({ url: site.url + "cookies/set?ignored=1", meta: { dont_merge_cookies: true } }),
    );
    const hidden = await downloader.fetch(
      new Request({ url: site.url + "cookies/show", meta: { dont_merge_cookies: true } }),
    );
    assert.deepEqual(cookiesOf(textOf(hidden)), {});
    const shown = await downloader.fetch(new Request(site.url + "cookies/show"));
    assert.deepEqual(cookiesOf(textOf(shown)), { kept: "1" });
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("with the cookies setting off nothing is stored or sent and there is no jar", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith({ cookies: false });
  try {
    assert.equal(downloader.cookieJar, undefined);
    await downloader.fetch(new Request(site.url + "cookies/set?a=1"));
    const echo = echoOf(await downloader.fetch(new Request(site.url + "echo")));
    assert.equal(echo.headers["cookie"], undefined);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("two downloaders keep separate jars", async () => {
  const site = await startFixtureSite();
  const first = downloaderWith();
  const second = downloaderWith();
  try {
    await first.fetch(new Request(site.url + "cookies/set?first=1"));
    const shown = await second.fetch(new Request(site.url + "cookies/show"));
    assert.deepEqual(cookiesOf(textOf(shown)), {});
  } finally {
    first.close();
    second.close();
    await site.close();
  }
});

Deno.test("a cookie put in the jar from outside the HTTP side (as the browser's are) goes out with the next request", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    // An empty jar: the lookup is skipped, and nothing is sent.
    assert.deepEqual(cookiesOf(textOf(await downloader.fetch(new Request(site.url + "cookies/show")))), {});
    assert.equal(site.requests.at(-1)!.headers.get("cookie"), null);
    await downloader.cookieJar!.setCookie("login=yes; Path=/", site.url);
    assert.deepEqual(cookiesOf(textOf(await downloader.fetch(new Request(site.url + "cookies/show")))), {
      login: "yes",
    });
    // Removed again: the jar is still asked, and has nothing to send.
    await downloader.cookieJar!.removeAllCookies();
    assert.deepEqual(cookiesOf(textOf(await downloader.fetch(new Request(site.url + "cookies/show")))), {});
  } finally {
    downloader.close();
    await site.close();
  }
});
