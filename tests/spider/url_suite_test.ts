/**
 * The WHATWG URL test data as links of pages (tests/spider/url_suite.ts): with the case's base as the page's URL, and
 * as its `<base href>`. Netweir resolves links with the runtime's URL parser, so a case passes when Netweir's three
 * answers are the data's; where they are not, they must be the runtime's own answer (the runtime's parser differs
 * from the newest data on some file: and opaque-path cases), never a third one. The counts are printed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as netweir from "../../mod.ts";
import { runUrlSuite, type UrlSuiteResult } from "./url_suite.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";

const DATA_PATH = fileURLToPath(new URL("../fixtures/urltestdata/urltestdata.json", import.meta.url));
const SUITE_PATH = fileURLToPath(new URL("./url_suite.ts", import.meta.url));
const data: unknown[] = JSON.parse(readFileSync(DATA_PATH, "utf8"));
const CASES = data.filter((entry) => typeof entry === "object").length;

function checkResult(result: UrlSuiteResult, label: string): void {
  console.log(
    `${label}: ${result.passed} passed, ${result.failed.length} as the runtime's URL parser answers ` +
      `(${result.runtimeDiffers} of them), ${result.skipped} skipped, of ${CASES}`,
  );
  assert.equal(result.passed + result.failed.length + result.skipped, CASES);
  // A guard against a run where nearly everything went the runtime's way: the runtime differs on a few cases only.
  const ran = CASES - result.skipped;
  assert.ok(result.passed > 0.8 * ran, `only ${result.passed} of ${ran} cases passed`);
  // Every case Netweir gets otherwise than the data is one the runtime's own parser gets so too.
  assert.equal(result.failed.length, result.runtimeDiffers, result.failed.join("\n"));
}

Deno.test("every WHATWG URL case resolves as a link of a page at the case's base", () => {
  checkResult(runUrlSuite(netweir, data, false), "Deno, page URL as base");
});

Deno.test("every WHATWG URL case resolves as a link of a page whose <base href> is the case's base", () => {
  checkResult(runUrlSuite(netweir, data, true), "Deno, <base href>");
});

Deno.test("the WHATWG URL cases resolve the same in the npm build on Node 22", async () => {
  const installed = await installBuiltPackage();
  try {
    const script = `
      import * as netweir from "netweir";
      import { readFileSync } from "node:fs";
      import { runUrlSuite } from ${JSON.stringify(SUITE_PATH)};
      const data = JSON.parse(readFileSync(${JSON.stringify(DATA_PATH)}, "utf8"));
      console.log(JSON.stringify([runUrlSuite(netweir, data, false), runUrlSuite(netweir, data, true)]));
    `;
    const ran = await installed.node(["--input-type=module", "--eval", script]);
    assert.equal(ran.code, 0, ran.stderr);
    const [plain, withBase] = JSON.parse(ran.stdout.trim());
    checkResult(plain, "Node 22 npm build, page URL as base");
    checkResult(withBase, "Node 22 npm build, <base href>");
  } finally {
    await installed.remove();
  }
});
