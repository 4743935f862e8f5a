import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { sha1Hex } from "../../src/spider/sha1.ts";

const reference = (text: string) => hash("sha1", text, "hex");

Deno.test("sha1Hex gives the FIPS 180 test vectors", () => {
  assert.equal(sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  assert.equal(sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  assert.equal(
    sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
  );
});

Deno.test("sha1Hex agrees with node:crypto at every padding boundary and in every UTF-8 width", () => {
  // 55, 56, 63 and 64 bytes are where the length moves into a block of its own.
  for (let length = 0; length <= 200; length++) {
    assert.equal(sha1Hex("a".repeat(length)), reference("a".repeat(length)));
  }
  for (const text of ["é", "日本語", "😀 emoji", "\ud800 lone surrogate", "mixed é 日 😀".repeat(20)]) {
    assert.equal(sha1Hex(text), reference(text), JSON.stringify(text));
  }
});

Deno.test("sha1Hex handles inputs larger than its scratch buffer, and smaller ones after them", () => {
  for (const text of ["x".repeat(20_000), "日".repeat(30_000), "y".repeat(200_000), "after"]) {
    assert.equal(sha1Hex(text), reference(text));
  }
});
