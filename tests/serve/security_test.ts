/** Keeping the service private: Origin refused, DNS rebinding refused while on loopback, basic auth. */
import assert from "node:assert/strict";
import { createApp } from "../../src/serve/app.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { isLoopbackHost } from "../../src/serve/security.ts";
import { createLogger } from "../../src/log.ts";
import { FakeJobs } from "./_fake_jobs.ts";
import { fixtureRegistry, form, withApp } from "./_setup.ts";

const AUTH = { username: "me", password: "s3cr3t-Pässword" };

function basic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return "Basic " + btoa(String.fromCharCode(...bytes));
}

Deno.test("loopback host names are localhost, 127.x.y.z and [::1], with or without a port", () => {
  for (const host of ["localhost", "LocalHost:6800", "127.0.0.1", "127.0.0.1:6800", "127.1.2.3", "[::1]", "[::1]:80"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of ["localhost.", "localhost.:6800", "127.0.0.1.", "127.0.0.1.:6800"]) {
    assert.equal(isLoopbackHost(host), true, `${host}: the root's dot`);
  }
  for (
    const host of [
      "evil.example",
      "evil.example:6800",
      "127.0.0.1.evil.example",
      "localhost.evil.example",
      "localhost..",
      "evil.example.",
      "127.0.0.256",
      "10.0.0.1",
      "0.0.0.0",
      "[::2]",
      "[::1].evil",
      "",
    ]
  ) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

Deno.test("a request with an Origin header is refused on every route, the status page included", async () => {
  await withApp({}, async ({ app }) => {
    for (const path of ["/daemonstatus.json", "/", "/logs/shop/books/x.log", "/nowhere"]) {
      const response = await app.request(path, { headers: { origin: "http://localhost:6800" } });
      assert.equal(response.status, 403, path);
      const body = await response.json();
      assert.equal(body.status, "error");
      assert.equal(body.node_name, "box");
      assert.match(body.message, /Origin/);
    }
    const post = await app.request("/schedule.json", {
      ...form([["project", "shop"], ["spider", "books"]]),
      headers: { origin: "null", "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(post.status, 403);
  });
});

Deno.test("while on loopback, a request addressed to another host name is refused (DNS rebinding)", async () => {
  await withApp({ loopback: true }, async ({ app }) => {
    const byHeader = await app.request("/listjobs.json", { headers: { host: "attacker.example:6800" } });
    assert.equal(byHeader.status, 403);
    assert.match((await byHeader.json()).message, /DNS rebinding/);
    assert.equal((await app.request("http://attacker.example:6800/")).status, 403);
    for (const host of ["localhost:6800", "127.0.0.1:6800", "[::1]:6800"]) {
      const response = await app.request("/listjobs.json", { headers: { host } });
      assert.equal(response.status, 200, host);
    }
  });
});

Deno.test("when not on loopback, any host name is answered", async () => {
  await withApp({ loopback: false }, async ({ app }) => {
    const response = await app.request("http://box.example:6800/daemonstatus.json");
    assert.equal(response.status, 200);
    assert.equal((await response.json()).status, "ok");
  });
});

Deno.test("with a username and password set, a request without them gets 401 and WWW-Authenticate", async () => {
  await withApp({ auth: AUTH }, async ({ app }) => {
    for (const path of ["/listjobs.json", "/", "/logs/shop/books/x.log"]) {
      const response = await app.request(path);
      assert.equal(response.status, 401, path);
      assert.match(response.headers.get("www-authenticate") ?? "", /^Basic realm="netweir serve"/);
      assert.equal(await response.text(), "Unauthorized", "scrapyd's body");
    }
  });
});

Deno.test("the right username and password are accepted, and a wrong one of either is refused", async () => {
  await withApp({ auth: AUTH }, async ({ app }) => {
    const get = (authorization: string) => app.request("/listprojects.json", { headers: { authorization } });
    const ok = await get(basic("me", AUTH.password));
    assert.equal(ok.status, 200);
    assert.deepEqual((await ok.json()).projects, ["shop", "news"]);
    assert.equal((await get(basic("me", "s3cr3t-Password"))).status, 401);
    assert.equal((await get(basic("you", AUTH.password))).status, 401);
    assert.equal((await get(basic("me", AUTH.password + "x"))).status, 401);
    assert.equal((await get(basic("me", ""))).status, 401);
    assert.equal((await get("Basic !!!notbase64")).status, 401);
    assert.equal((await get("Bearer " + AUTH.password)).status, 401);
    assert.equal((await get("Basic " + btoa("no colon"))).status, 401);
  });
});

Deno.test("the password appears in no answer and no log line, right or wrong", async () => {
  const lines: string[] = [];
  const app = createApp({
    jobs: new FakeJobs(),
    registry: fixtureRegistry(),
    paths: servePaths("/nonexistent-netweir-serve-dir"),
    nodeName: "box",
    loopback: true,
    auth: AUTH,
    log: createLogger("debug", (line) => lines.push(line)),
  });
  const texts: string[] = [];
  for (const password of [AUTH.password, "wrong"]) {
    const headers = { authorization: basic("me", password) };
    for (const path of ["/", "/listjobs.json", "/daemonstatus.json", "/nowhere", "/schedule.json"]) {
      texts.push(await (await app.request(path, { headers })).text());
    }
    const scheduled = await app.request("/schedule.json", {
      ...form([["project", "news"], ["spider", "feeds"], ["setting", "nope=1"]]),
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    });
    texts.push(await scheduled.text());
  }
  assert.ok(texts.some((text) => text.includes("unknown setting nope")), "the authorised requests were answered");
  for (const text of [...texts, ...lines]) assert.doesNotMatch(text, /s3cr3t/);
});

Deno.test("answers tell browsers not to guess their type", async () => {
  await withApp({}, async ({ app }) => {
    const response = await app.request("/daemonstatus.json");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("access-control-allow-origin"), null);
  });
});
