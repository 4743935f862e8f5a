/**
 * Netweir's encoding detection (src/spider/charset.ts) held to html5lib's encoding tests (tests/fixtures/
 * html5lib-encoding): each page's bytes with no Content-Type charset must be read in the encoding the case names.
 * The counts are printed.
 */
import assert from "node:assert/strict";
import { detectEncoding } from "../../src/spider/charset.ts";
import { encodingCases } from "./html5lib_encoding.ts";

for (const file of ["tests1.dat", "tests2.dat", "test-yahoo-jp.dat"]) {
  Deno.test(`every page of html5lib's encoding/${file} is read in the encoding it names`, () => {
    const cases = encodingCases(file);
    const wrong = cases
      .map((test) => ({ test, found: detectEncoding(test.bytes, null) }))
      .filter(({ test, found }) => found !== test.encoding)
      .map(({ test, found }) =>
        `${
          JSON.stringify(new TextDecoder("latin1").decode(test.bytes.subarray(0, 80)))
        }: ${found}, not ${test.encoding}`
      );
    console.log(`html5lib encoding/${file}: ${cases.length - wrong.length} of ${cases.length} right`);
    assert.ok(cases.length > 0);
    assert.deepEqual(wrong, []);
  });
}
