import assert from "node:assert/strict";
import { checkQueueKey, maskQueueUrl, parseRedisUrl } from "../../src/settings/redis_url.ts";

Deno.test("redis:// URLs give host, port, database and login", () => {
  assert.deepEqual(parseRedisUrl("redis://10.0.0.5:6380/2"), {
    host: "10.0.0.5",
    port: 6380,
    db: 2,
    username: undefined,
    password: undefined,
  });
  assert.deepEqual(parseRedisUrl("redis://:s%40cret@127.0.0.1"), {
    host: "127.0.0.1",
    port: 6379,
    db: 0,
    username: undefined,
    password: "s@cret",
  });
  assert.equal(parseRedisUrl("redis://crawler:pw@[::1]:7000/0").host, "::1");
  assert.equal(parseRedisUrl("redis://crawler:pw@[::1]:7000/0").username, "crawler");
});

Deno.test("rediss:// URLs are redis:// over TLS, with files for a private CA and a client certificate", () => {
  assert.deepEqual(parseRedisUrl("rediss://:pw@redis.example:6380/1?ca=/etc/ca.pem&cert=/c.pem&key=/k.pem"), {
    host: "redis.example",
    port: 6380,
    db: 1,
    username: undefined,
    password: "pw",
    tls: { ca: "/etc/ca.pem", cert: "/c.pem", key: "/k.pem" },
  });
  assert.deepEqual(parseRedisUrl("rediss://redis.example").tls, {});
});

Deno.test("redis+unix:// URLs give the socket path, database and password", () => {
  assert.deepEqual(parseRedisUrl("redis+unix:///run/redis.sock?db=4&pass=secret"), {
    path: "/run/redis.sock",
    db: 4,
    password: "secret",
  });
  assert.deepEqual(parseRedisUrl("redis+unix:///run/redis.sock"), {
    path: "/run/redis.sock",
    db: 0,
    password: undefined,
  });
});

Deno.test("unix sockets are refused on Windows", () => {
  assert.throws(
    () => parseRedisUrl("redis+unix:///run/redis.sock?db=0", { windows: true }),
    /no unix sockets on Windows/,
  );
});

Deno.test("URLs that are not a single plain Redis are refused with a TypeError that hides the password", () => {
  const cases: Array<[string, RegExp]> = [
    ["http://127.0.0.1:6379/0", /http:\/\/ is not a Redis URL/],
    ["rediss://:pw@127.0.0.1:6379/0?cert=/c.pem", /a client certificate needs both cert= and key=/],
    ["rediss://:pw@127.0.0.1:6379/0?ca=", /the ca parameter names no file/],
    ["redis-sentinel://127.0.0.1:26379", /a Sentinel URL is written redis\+sentinel:\/\//],
    ["redis-cluster://127.0.0.1:7000", /Cluster is not supported/],
    ["redis://:pw@127.0.0.1:6379/zero", /the database must be a number/],
    ["not a url", /not a URL/],
    ["redis+unix://host/run/redis.sock", /has no host/],
  ];
  for (const [url, message] of cases) {
    assert.throws(() => parseRedisUrl(url), (error: Error) => {
      assert.ok(error instanceof TypeError, url);
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /:pw@/);
      return true;
    });
  }
});

Deno.test("a queue key must be non-empty, printable and short", () => {
  assert.equal(checkQueueKey("books-2026-10"), "books-2026-10");
  assert.throws(() => checkQueueKey(""), TypeError);
  assert.throws(() => checkQueueKey("two words"), TypeError);
  assert.throws(() => checkQueueKey("bell\x07"), TypeError);
  assert.throws(() => checkQueueKey("k".repeat(201)), TypeError);
});

Deno.test("a password that breaks the URL (/ ? # a space, a bad %-escape) is hidden in the refusal too", () => {
  const secrets = ["pa/ss", "pa?ss", "pa#ss", "pa ss/x", "pa%zzss", "p@ss/word"];
  for (const secret of secrets) {
    for (const url of [`redis://:${secret}@127.0.0.1:1/0`, `redis://user:${secret}@127.0.0.1:1/0`]) {
      let message = "";
      try {
        parseRedisUrl(url);
      } catch (error) {
        assert.ok(error instanceof TypeError, url);
        message = (error as Error).message;
      }
      assert.notEqual(message, "", `${url} was accepted`);
      assert.ok(!message.includes(secret) && !message.includes("ss@"), `${url}: ${message}`);
      assert.match(message, /^queue URL redis:\/\/(user)?:\*\*\*@/);
    }
  }
  assert.equal(maskQueueUrl("redis+unix:///run/r.sock?db=1&pass=a/b"), "redis+unix:///run/r.sock?db=1&pass=***");
  assert.equal(maskQueueUrl("redis+unix:///r.sock?pass=a%zz b"), "redis+unix:///r.sock?pass=***");
});

Deno.test("a database number Redis cannot have is refused as a mistake in the URL", () => {
  for (const url of ["redis://127.0.0.1:6379/99999999999999999999", "redis+unix:///run/redis.sock?db=2147483648"]) {
    assert.throws(() => parseRedisUrl(url), (error: Error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /the database must be a number up to 2147483647, not \d+$/);
      return true;
    });
  }
  assert.equal(parseRedisUrl("redis://127.0.0.1:6379/2147483647").db, 2147483647);
});
