import assert from "node:assert/strict";
import { validateSetting } from "../../src/settings/coerce.ts";
import { DEFAULT_USER_AGENT, findSetting, nearestSetting, SETTINGS } from "../../src/settings/table.ts";
import { VERSION } from "../../src/version.ts";

const TYPES = new Set(["int", "float", "bool", "string", "strings", "ints", "headers", "auth-map", "object", "hosts"]);

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => "_" + letter.toLowerCase());
}

Deno.test("every row of the table has a key, a cli name, a known type, a default and a one-line doc", () => {
  assert.ok(SETTINGS.length > 30, `only ${SETTINGS.length} settings in the table`);
  for (const row of SETTINGS) {
    assert.match(row.key, /^[a-z][A-Za-z0-9]*$/, `key of ${row.cli}`);
    assert.match(row.cli, /^[a-z][a-z0-9_]*$/, `cli name of ${row.key}`);
    assert.ok(TYPES.has(row.type), `${row.key} has type ${row.type}`);
    assert.ok("default" in row && row.default !== undefined, `${row.key} has no default`);
    assert.equal(typeof row.doc, "string", `${row.key} doc`);
    assert.ok(row.doc.trim().length > 10, `${row.key} doc is too short: ${JSON.stringify(row.doc)}`);
    assert.ok(!row.doc.includes("\n"), `${row.key} doc is more than one line`);
  }
});

Deno.test("every cli name is the snake_case spelling of its TypeScript key", () => {
  for (const row of SETTINGS) assert.equal(row.cli, snakeCase(row.key), row.key);
});

Deno.test("no two rows share a key or a cli name", () => {
  const names = SETTINGS.flatMap((row) => row.key === row.cli ? [row.key] : [row.key, row.cli]);
  assert.equal(new Set(names).size, names.length);
});

Deno.test("every default passes its own row's type, choices and check", () => {
  for (const row of SETTINGS) {
    assert.doesNotThrow(() => validateSetting(row, row.default), `default of ${row.cli}`);
    if (row.default === null) assert.ok(row.nullable, `${row.cli} defaults to null but is not nullable`);
    if (row.choices && row.default !== null) assert.ok(row.choices.includes(row.default as string), row.cli);
  }
});

Deno.test("the rows' checks refuse values outside their range", () => {
  const refused: [string, unknown][] = [
    ["concurrency", 0],
    ["per_domain", 0],
    ["min_delay", -1],
    ["timeout", 0],
    ["max_url_length", 15],
    ["proxies", ["ftp://127.0.0.1:21"]],
    ["log_level", "verbose"],
    ["proxy_rotation", "random"],
  ];
  for (const [name, value] of refused) {
    assert.throws(() => validateSetting(findSetting(name)!, value), { name: "SettingsError" }, `${name}=${value}`);
  }
});

Deno.test("the default user agent names this version of netweir", () => {
  assert.equal(DEFAULT_USER_AGENT, `netweir/${VERSION}`);
  assert.equal(findSetting("userAgent")!.default, DEFAULT_USER_AGENT);
});

Deno.test("findSetting finds the same row by either spelling", () => {
  for (const row of SETTINGS) {
    assert.equal(findSetting(row.key), row);
    assert.equal(findSetting(row.cli), row);
  }
  assert.equal(findSetting("max_items")!.key, "maxItems");
  assert.equal(findSetting("perDomain")!.cli, "per_domain");
});

Deno.test("findSetting knows nothing of names outside the table, even an object's own property names", () => {
  for (const name of ["maxitems", "max-items", "MAX_ITEMS", "", "constructor", "toString", "__proto__"]) {
    assert.equal(findSetting(name), undefined, name);
  }
});

Deno.test("nearestSetting suggests the cli spelling of a near miss in either spelling", () => {
  assert.equal(nearestSetting("max_item"), "max_items");
  assert.equal(nearestSetting("maxItem"), "max_items");
  assert.equal(nearestSetting("per_domian"), "per_domain");
  assert.equal(nearestSetting("concurency"), "concurrency");
  assert.equal(nearestSetting("obeyRobotTxt"), "obey_robots_txt");
  assert.equal(nearestSetting("MAX_PAGES"), "max_pages");
});

Deno.test("nearestSetting suggests nothing for a name far from every setting", () => {
  assert.equal(nearestSetting("xyzzy"), undefined);
  assert.equal(nearestSetting("completely_unrelated_thing"), undefined);
});
