import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { maskSecrets, maskUrl } from "../src/log.ts";
import { SHAPES } from "./_mask_timing.ts";
import { runScript } from "./helpers/cli.ts";

const MASK_TIMING = fileURLToPath(new URL("./_mask_timing.ts", import.meta.url));

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

Deno.test("masking a 1 MB value costs about what masking 1 KB values of the same total length does", async () => {
  // Per character, a 1 MB text against 1,024 texts of 1 KB: 1 for masking in linear time, about 1,000 for the
  // quadratic patterns this replaces (a 50 KB spider argument took 14 s). Bounded at 10, well clear of both: the
  // machine runs other work, and each figure is already the fastest of five rounds. The 60 s guard kills a masking
  // that has not ended (the quadratic one needed about 20 minutes for 1 MB): that is a failure too.
  for (const shape of Object.keys(SHAPES)) {
    const result = await runScript(MASK_TIMING, [shape, String(1 << 20)], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, `${shape}: ${result.stderr}`);
    const { long, short } = JSON.parse(result.stdout);
    assert.ok(long / short < 10, `${shape}: ${long.toFixed(2)} ns a character for 1 MB, ${short.toFixed(2)} for 1 KB`);
  }
});

Deno.test("query parameters named pwd, auth, token and the like are masked as pass is", () => {
  assert.equal(
    maskSecrets("GET http://h/feed?pwd=a1&auth=a2&page=3&access_token=a4&api_key=a5 failed"),
    "GET http://h/feed?pwd=***&auth=***&page=3&access_token=***&api_key=*** failed",
  );
  assert.equal(
    maskUrl("http://h/feed?PWD=a1&token=a2&author=Tolkien"),
    "http://h/feed?PWD=***&token=***&author=Tolkien",
  );
});
