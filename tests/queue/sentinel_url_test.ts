import assert from "node:assert/strict";
import { maskQueueUrl, parseRedisUrl } from "../../src/settings/redis_url.ts";

Deno.test("redis+sentinel:// URLs give the Sentinels, the service, the database and the servers' login", () => {
  assert.deepEqual(parseRedisUrl("redis+sentinel://:s%40cret@10.0.0.5:26380,10.0.0.6,[::1]:5000/books/3"), {
    sentinel: {
      hosts: [{ host: "10.0.0.5", port: 26380 }, { host: "10.0.0.6", port: 26379 }, { host: "::1", port: 5000 }],
      service: "books",
    },
    db: 3,
    username: undefined,
    password: "s@cret",
  });
  assert.deepEqual(parseRedisUrl("redis+sentinel://crawler:pw@s1:26379/mymaster?sentinel_password=t%26k"), {
    sentinel: { hosts: [{ host: "s1", port: 26379 }], service: "mymaster", password: "t&k" },
    db: 0,
    username: "crawler",
    password: "pw",
  });
});

Deno.test("a bad redis+sentinel:// URL is refused with one line naming what is wrong, and no password", () => {
  const cases: Array<[string, RegExp]> = [
    ["redis+sentinel://:pw@s1:26379", /no service/],
    ["redis+sentinel://:pw@s1:26379/", /no service/],
    ["redis+sentinel://:pw@s1:26379,,s2/books/0", /an empty Sentinel in the host list/],
    ["redis+sentinel://:pw@s1:port/books/0", /Sentinel "s1:port" is not host:port/],
    ["redis+sentinel://:pw@s1:70000/books/0", /Sentinel "s1:70000" has no valid port/],
    ["redis+sentinel://:pw@s1/books/zero", /the database must be a number, not "zero"/],
    ["redis+sentinel://:pw@s1/books/0/more", /too many parts in the path/],
    ["redis+sentinel://:pw@s1/books/0?role=slave", /unknown parameter "role"/],
    ["redis+sentinel://:pw@s1/books/0?sentinel_password=", /sentinel_password is empty/],
    ["redis+sentinel://:p%zz@s1/books/0", /the password has a % that is not followed by two hex digits/],
  ];
  for (const [url, message] of cases) {
    assert.throws(() => parseRedisUrl(url), (error: Error) => {
      assert.ok(error instanceof TypeError, url);
      assert.match(error.message, message);
      assert.equal(error.message.split("\n").length, 1);
      assert.doesNotMatch(error.message, /:pw@|p%zz/);
      return true;
    });
  }
});

Deno.test("a Sentinel URL is shown with both passwords hidden", () => {
  assert.equal(
    maskQueueUrl("redis+sentinel://u:s3cret@s1:1,s2:2/books/0?sentinel_password=t0ken"),
    "redis+sentinel://u:***@s1:1,s2:2/books/0?sentinel_password=***",
  );
});
