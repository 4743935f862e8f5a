/**
 * The XPath cases ported from parsel's own tests and cssselect's (the XPath of its selectors), answered by parsel 1.7
 * and lxml (libxml2): Netweir gives parsel's answer to each, except the few listed in
 * tests/fixtures/xpath/netweir_differences.json with why, where the test holds Netweir's own answer (so a change to
 * either shows).
 */
import assert from "node:assert/strict";
import { agrees, netweirAnswer, readCases, readDifferences } from "./xpath_cases.ts";

Deno.test("Netweir's XPath answers the cases from parsel's and cssselect's tests as parsel does, but for the differences listed", async () => {
  const cases = await readCases();
  const differences = await readDifferences();
  assert.ok(cases.length >= 250, `only ${cases.length} cases in the fixture`);
  let agreeing = 0;
  const unexpected: string[] = [];
  for (const testCase of cases) {
    const got = netweirAnswer(testCase);
    const listed = differences[testCase.id];
    if (listed === undefined) {
      if (agrees(testCase.expected, got)) agreeing++;
      else {unexpected.push(
          `#${testCase.id} ${testCase.query}: parsel ${JSON.stringify(testCase.expected)}, Netweir ${
            JSON.stringify(got)
          }`,
        );}
      continue;
    }
    assert.equal(listed.query, testCase.query, `difference #${testCase.id} names another query: the ids moved`);
    assert.ok(!agrees(testCase.expected, got), `#${testCase.id} now agrees with parsel: take it off the list`);
    assert.deepEqual(got, listed.netweir, `#${testCase.id}: Netweir's answer changed`);
  }
  assert.deepEqual(unexpected, []);
  assert.equal(agreeing + Object.keys(differences).length, cases.length);
  console.log(`XPath cases from parsel's and cssselect's tests: ${agreeing} of ${cases.length} as parsel answers them`);
});
