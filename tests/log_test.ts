import assert from "node:assert/strict";
import { maskSecrets, maskUrl } from "../src/log.ts";

Deno.test("maskUrl hides the whole password of a URL, whatever characters it holds", () => {
  assert.equal(maskUrl("redis://:secret@10.0.0.5:6379/0"), "redis://:***@10.0.0.5:6379/0");
  assert.equal(maskUrl("redis://user:secret@10.0.0.5:6379/0"), "redis://user:***@10.0.0.5:6379/0");
  for (const url of ["redis://:p@ss@127.0.0.1:1/0", "redis://:pa ss@127.0.0.1:1/0", "redis://:a:b@127.0.0.1:1/0"]) {
    const masked = maskUrl(url);
    assert.equal(masked, "redis://:***@127.0.0.1:1/0", url);
  }
  assert.equal(maskUrl("redis+unix:///run/redis.sock?db=0&pass=s3cr:t"), "redis+unix:///run/redis.sock?db=0&pass=***");
  assert.equal(maskUrl("redis://10.0.0.5:6379/0"), "redis://10.0.0.5:6379/0", "nothing to hide");
  assert.equal(maskUrl("redis://:secret@[bad/0"), "redis://:***@[bad/0", "unparseable: masked as text");
});

Deno.test("maskSecrets hides passwords in free text and keeps the sentence around them", () => {
  assert.equal(
    maskSecrets("cannot reach the queue at redis://:p@ss@127.0.0.1:1/0: connection refused"),
    "cannot reach the queue at redis://:***@127.0.0.1:1/0: connection refused",
  );
  assert.equal(
    maskSecrets("cannot reach redis+unix:///r.sock?db=0&pass=secret: WRONGPASS invalid password"),
    "cannot reach redis+unix:///r.sock?db=0&pass=***: WRONGPASS invalid password",
  );
  assert.equal(maskSecrets("x?password=a:b&db=1 y"), "x?password=***&db=1 y");
  assert.equal(maskSecrets("already masked redis://:***@h/0: why"), "already masked redis://:***@h/0: why");
});
