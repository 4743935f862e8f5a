/** Loading spider files and picking the spider a command asked for. */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { UsageError } from "../../src/errors.ts";
import { createSpider, loadSpiders, pickSpider, spiderClassName } from "../../src/load/spiders.ts";
import { Spider } from "../../src/spider/spider.ts";
import { fixture } from "./_run.ts";

class Lonely extends Spider {
  override name = "lonely";
}
class Unnamed extends Spider {}

function usageError(message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof UsageError, `expected a UsageError, got ${error}`);
    assert.equal(error.message, message);
    return true;
  };
}

Deno.test("loadSpiders returns each exported Spider subclass once and nothing else", async () => {
  const classes = await loadSpiders(fixture("two_spiders.ts"));
  assert.deepEqual(classes.map(spiderClassName), ["Books", "quotes"]);
  assert.deepEqual(classes.map((spiderClass) => spiderClass.name), ["Books", "Quotes"]);
});

Deno.test("loadSpiders of a file that does not exist is a usage error naming it", async () => {
  await assert.rejects(loadSpiders("no/such/spider.ts"), usageError("no such file: no/such/spider.ts"));
});

Deno.test("loadSpiders of a directory is a usage error", async () => {
  await assert.rejects(loadSpiders(fixture("spiders")), usageError(`not a file: ${fixture("spiders")}`));
});

Deno.test("loadSpiders of a file that throws on import gives the first line of its error, as a usage error", async () => {
  const file = fixture("throws.ts");
  await assert.rejects(loadSpiders(file), usageError(`${file}: broken on purpose`));
});

Deno.test("pickSpider returns a file's only spider without a name", () => {
  assert.equal(pickSpider([Lonely], undefined, "one.ts"), Lonely);
});

Deno.test("pickSpider finds a spider by its name, else by its class name", () => {
  assert.equal(pickSpider([Lonely, Unnamed], "lonely", "two.ts"), Lonely);
  assert.equal(pickSpider([Lonely, Unnamed], "Unnamed", "two.ts"), Unnamed);
});

Deno.test("pickSpider does not take the class name of a spider that has a name of its own", () => {
  assert.throws(
    () => pickSpider([Lonely, Unnamed], "Lonely", "two.ts"),
    usageError("no spider named Lonely in two.ts (found: lonely, Unnamed)"),
  );
});

Deno.test("pickSpider asks for --spider when a file has several spiders", () => {
  assert.throws(
    () => pickSpider([Lonely, Unnamed], undefined, "two.ts"),
    usageError("two.ts has several spiders (lonely, Unnamed); choose one with --spider"),
  );
});

Deno.test("pickSpider names the spiders it found when none has the name asked for", () => {
  assert.throws(
    () => pickSpider([Lonely], "books", "one.ts"),
    usageError("no spider named books in one.ts (found: lonely)"),
  );
});

Deno.test("pickSpider says so when a file exports no spider", () => {
  assert.throws(() => pickSpider([], undefined, "empty.ts"), usageError("empty.ts exports no Spider subclass"));
  assert.throws(() => pickSpider([], "books", "empty.ts"), usageError("empty.ts exports no Spider subclass"));
});

Deno.test("loadSpiders of a file with a syntax error names the file, line and column", async () => {
  // Named as from the working directory, as a user writes paths.
  const file = relative(runtime.cwd(), fixture("broken_syntax.ts"));
  await assert.rejects(loadSpiders(file), usageError(`${file}:7:28: SyntaxError: Expected ',', got ';'`));
});

Deno.test("loadSpiders of a Python file says Netweir runs .ts and .js spiders, without importing it", async () => {
  const file = fixture("books.py");
  await assert.rejects(
    loadSpiders(file),
    usageError(`${file} is a Python file; Netweir runs only .ts and .js spiders (.mts and .mjs too)`),
  );
});

Deno.test("createSpider turns a throw in the spider's constructor into a usage error naming the spider", () => {
  class Unready extends Spider {
    constructor() {
      super();
      throw new RangeError("SHOP_URL is not set");
    }
  }
  assert.throws(
    () => createSpider(Unready),
    usageError("spider Unready could not be created: RangeError: SHOP_URL is not set"),
  );
  assert.equal(createSpider(Lonely).name, "lonely");
});
