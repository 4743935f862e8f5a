import assert from "node:assert/strict";
import { RecentFingerprints } from "../../src/queue/recent_fingerprints.ts";

const fp = (n: number) => n.toString(16).padStart(32, "0");

Deno.test("recent fingerprints keep the last two generations: the older one goes when the young one fills", () => {
  const recent = new RecentFingerprints(4);
  recent.add(fp(1));
  recent.add(fp(2));
  recent.add(fp(2));
  assert.equal(recent.size, 2, "a fingerprint is kept once");
  recent.add(fp(3)); // the young generation (1, 2) was full: it becomes the old one
  assert.ok(recent.has(fp(1)) && recent.has(fp(2)) && recent.has(fp(3)));
  recent.add(fp(4));
  recent.add(fp(5)); // (3, 4) becomes old; (1, 2) is forgotten
  assert.equal(recent.has(fp(1)), false);
  assert.equal(recent.has(fp(2)), false);
  assert.ok(recent.has(fp(3)) && recent.has(fp(4)) && recent.has(fp(5)));
  assert.equal(recent.size, 3);
  assert.equal(recent.has(fp(6)), false);
});
