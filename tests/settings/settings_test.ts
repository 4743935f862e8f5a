import assert from "node:assert/strict";
import { SettingsError } from "../../src/errors.ts";
import { Settings } from "../../src/settings/settings.ts";
import { SETTINGS } from "../../src/settings/table.ts";

function refusedWith(setting: string, words: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SettingsError, `expected a SettingsError, got ${error}`);
    assert.equal(error.setting, setting);
    assert.match(error.message, words);
    return true;
  };
}

Deno.test("both spellings of a setting are accepted and normalised to the TypeScript one", () => {
  const snake = new Settings({ max_items: 5, per_domain: 2, obey_robots_txt: false });
  const camel = new Settings({ maxItems: 5, perDomain: 2, obeyRobotsTxt: false });
  for (const settings of [snake, camel]) {
    assert.equal(settings.given("maxItems"), 5);
    assert.equal(settings.given("perDomain"), 2);
    assert.equal(settings.given("obeyRobotsTxt"), false);
    assert.deepEqual(settings.keys().sort(), ["maxItems", "obeyRobotsTxt", "perDomain"]);
    assert.ok(settings.has("maxItems"));
    assert.ok(!settings.has("maxPages"));
  }
});

Deno.test("a setting given as undefined counts as not given", () => {
  const settings = new Settings({ maxItems: undefined, concurrency: 3 });
  assert.ok(!settings.has("maxItems"));
  assert.deepEqual(settings.keys(), ["concurrency"]);
  assert.equal(settings.resolve().maxItems, null);
});

Deno.test("an unknown setting is refused with a did-you-mean naming the nearest one", () => {
  assert.throws(
    () => new Settings({ max_item: 5 }),
    refusedWith("max_item", /unknown setting max_item.*did you mean max_items\?/),
  );
  assert.throws(() => new Settings({ perDomian: 1 }), refusedWith("perDomian", /did you mean per_domain\?/));
});

Deno.test("an unknown setting far from every name is refused without a guess", () => {
  assert.throws(() => new Settings({ xyzzy: 1 }), (error: unknown) => {
    assert.ok(error instanceof SettingsError);
    assert.match(error.message, /unknown setting xyzzy/);
    assert.doesNotMatch(error.message, /did you mean/);
    return true;
  });
});

Deno.test("a value of the wrong type is refused naming the setting in its command-line spelling", () => {
  assert.throws(() => new Settings({ maxItems: "5" }), refusedWith("max_items", /max_items.*whole number/));
  assert.throws(() => new Settings({ cookies: "yes" }), refusedWith("cookies", /true or false/));
  assert.throws(() => new Settings({ concurrency: 0 }), refusedWith("concurrency", /at least 1/));
  assert.throws(() => new Settings({ concurrency: null }), refusedWith("concurrency", /cannot be null/));
});

Deno.test("merge puts the other layer's values over this one's and leaves both layers unchanged", () => {
  const low = new Settings({ concurrency: 2, perDomain: 1, maxItems: 10 });
  const high = new Settings({ perDomain: 4, max_pages: 7 });
  const merged = low.merge(high);
  assert.equal(merged.given("concurrency"), 2);
  assert.equal(merged.given("perDomain"), 4);
  assert.equal(merged.given("maxItems"), 10);
  assert.equal(merged.given("maxPages"), 7);
  assert.equal(low.given("perDomain"), 1);
  assert.ok(!low.has("maxPages"));
  assert.ok(!high.has("concurrency"));
});

Deno.test("merge takes a plain object in either spelling, or nothing", () => {
  const base = new Settings({ concurrency: 2 });
  assert.equal(base.merge({ per_domain: 3 }).given("perDomain"), 3);
  assert.equal(base.merge({ concurrency: 9 }).given("concurrency"), 9);
  assert.deepEqual(base.merge(undefined).toJSON(), { concurrency: 2 });
  assert.throws(() => base.merge({ concurency: 3 }), refusedWith("concurency", /did you mean concurrency/));
});

Deno.test("a null given on top replaces the value below it", () => {
  const merged = new Settings({ maxItems: 10 }).merge({ max_items: null });
  assert.equal(merged.resolve().maxItems, null);
});

Deno.test("fromPairs parses KEY=VALUE texts by each setting's type, in either spelling", () => {
  const settings = Settings.fromPairs([
    "max_items=5",
    "perDomain=2",
    "autothrottle=off",
    "min_delay=0.5",
    " proxies =http://127.0.0.1:1,http://127.0.0.1:2",
    "user_agent=bot=1; x",
    "max_depth=null",
  ]);
  assert.deepEqual(settings.toJSON(), {
    max_items: 5,
    per_domain: 2,
    autothrottle: false,
    min_delay: 0.5,
    proxies: ["http://127.0.0.1:1", "http://127.0.0.1:2"],
    user_agent: "bot=1; x",
    max_depth: null,
  });
});

Deno.test("fromPairs lets a later pair for the same setting win, whatever its spelling", () => {
  assert.equal(Settings.fromPairs(["max_items=5", "maxItems=6"]).given("maxItems"), 6);
});

Deno.test("fromPairs refuses a pair without a name or an equals sign", () => {
  for (const pair of ["max_items", "=5", ""]) {
    assert.throws(() => Settings.fromPairs([pair]), (error: unknown) => {
      assert.ok(error instanceof SettingsError);
      assert.match(error.message, /KEY=VALUE/);
      return true;
    }, JSON.stringify(pair));
  }
});

Deno.test("fromPairs refuses an unknown name with a did-you-mean, and a bad value naming the setting", () => {
  assert.throws(() => Settings.fromPairs(["max_item=5"]), refusedWith("max_item", /did you mean max_items\?/));
  assert.throws(() => Settings.fromPairs(["max_items=lots"]), refusedWith("max_items", /whole number/));
  assert.throws(() => Settings.fromPairs(["concurrency=0"]), refusedWith("concurrency", /at least 1/));
  assert.throws(() => Settings.fromPairs(["log_level=loud"]), refusedWith("log_level", /one of/));
});

Deno.test("resolve gives every setting of the table: the given ones and the defaults for the rest", () => {
  const values = new Settings({ concurrency: 3 }).resolve() as Record<string, unknown>;
  assert.deepEqual(Object.keys(values).sort(), SETTINGS.map((row) => row.key).sort());
  for (const row of SETTINGS) {
    if (row.key === "concurrency") assert.equal(values[row.key], 3);
    else assert.deepEqual(values[row.key], row.default, row.key);
  }
});

Deno.test("toJSON lists only the given values, in command-line spelling", () => {
  const settings = new Settings({ maxPagesPerDomain: 3, obeyRobotsTxt: false, progress: null });
  assert.deepEqual(settings.toJSON(), { max_pages_per_domain: 3, obey_robots_txt: false, progress: null });
  assert.equal(JSON.stringify(new Settings()), "{}");
  assert.deepEqual(JSON.parse(JSON.stringify(settings)), settings.toJSON());
});

Deno.test("defaults are not shared between resolves: changing one resolved list or map changes no other", () => {
  const settings = new Settings();
  const first = settings.resolve();
  first.retryHttpCodes.push(999);
  first.proxies.push("http://127.0.0.1:9");
  first.defaultHeaders["x-leak"] = "1";
  first.httpAuth["leak.test"] = { user: "u", password: "p" };
  for (const other of [settings.resolve(), new Settings().resolve()]) {
    assert.ok(!other.retryHttpCodes.includes(999));
    assert.deepEqual(other.proxies, []);
    assert.equal(other.defaultHeaders["x-leak"], undefined);
    assert.deepEqual(other.httpAuth, {});
  }
  const row = SETTINGS.find((r) => r.key === "retryHttpCodes")!;
  assert.ok(!(row.default as number[]).includes(999), "the table's own default was changed");
});

Deno.test("given lists are not shared between resolves either, nor with the caller's own list", () => {
  const proxies = ["http://127.0.0.1:1"];
  const settings = new Settings({ proxies });
  proxies.push("ftp://not-checked.test");
  assert.deepEqual(settings.resolve().proxies, ["http://127.0.0.1:1"]);
  settings.resolve().proxies.push("http://127.0.0.1:2");
  assert.deepEqual(settings.resolve().proxies, ["http://127.0.0.1:1"]);
});
