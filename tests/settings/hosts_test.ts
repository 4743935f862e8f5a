/** The `hosts` setting: which entry holds a host, and what is refused at start (in the library and as `-s`). */
import assert from "node:assert/strict";
import { hostEntry, normaliseHosts } from "../../src/settings/hosts.ts";
import { Settings } from "../../src/settings/settings.ts";
import { TABLE } from "../../src/settings/table.ts";
import type { SettingDefinition } from "../../src/settings/types.ts";
import { runCli } from "../cli/_run.ts";

const ROWS = TABLE as unknown as Record<string, SettingDefinition>;

Deno.test("the most specific pattern holds a host: its exact name, else the wildcard of its nearest domain", () => {
  const hosts = normaliseHosts({
    "*.example.com": { perDomain: 2 },
    "*.a.example.com": { per_domain: 3 },
    "X.A.Example.com": { perDomain: 1 },
  }, ROWS);
  assert.deepEqual(hostEntry(hosts, "x.a.example.com"), { perDomain: 1 });
  assert.deepEqual(hostEntry(hosts, "y.a.example.com"), { perDomain: 3 });
  assert.deepEqual(hostEntry(hosts, "deep.y.a.example.com"), { perDomain: 3 });
  assert.deepEqual(hostEntry(hosts, "b.example.com"), { perDomain: 2 });
  assert.equal(hostEntry(hosts, "example.com"), undefined, "*.example.com holds subdomains, not the domain");
  assert.equal(hostEntry(hosts, "badexample.com"), undefined);
});

Deno.test("hosts refuses a bad pattern, an unknown key and a bad value, naming the entry", () => {
  assert.throws(() => new Settings({ hosts: { "a b": {} } }).resolve(), /setting hosts has a bad entry: "a b" is not/);
  assert.throws(() => new Settings({ hosts: { "x.*.com": {} } }).resolve(), /not a host name or \*\.domain pattern/);
  assert.throws(
    () => new Settings({ hosts: { "x.com": { speed: 9 } } }).resolve(),
    /x\.com: speed is not a per-host setting \(those are per_domain, min_delay.*, render\)/,
  );
  assert.throws(
    () => new Settings({ hosts: { "x.com": { render: "yes" } } }).resolve(),
    /x\.com: render must be true or false$/,
  );
  assert.throws(
    () => new Settings({ hosts: { "x.com": { render: "auto" } } }).resolve(),
    /x\.com: render must be true or false \("auto" is for requests, rules and the render setting\)$/,
  );
  assert.throws(
    () => new Settings({ hosts: { "x.com": { per_domain: 0 } } }).resolve(),
    /x\.com: setting per_domain must be at least 1/,
  );
  assert.throws(() => new Settings({ hosts: { "x.com": 3 } }).resolve(), /x\.com must map to an object of settings/);
  assert.throws(
    () => new Settings({ hosts: [] } as never).resolve(),
    /setting hosts must be an object of host patterns to settings/,
  );
});

Deno.test("-s hosts=JSON is shown by netweir settings, and a bad one exits 2 with one line", async () => {
  const good = await runCli(["settings", "--get", "hosts", "-s", 'hosts={"api.example.com":{"per_domain":1}}']);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(good.stdout.trim(), '{"api.example.com":{"per_domain":1}}');
  const bad = await runCli(["settings", "-s", 'hosts={"api.example.com":{"speed":9}}']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
  assert.match(bad.stderr, /hosts has a bad entry: api\.example\.com: speed is not a per-host setting/);
  const notJson = await runCli(["settings", "-s", "hosts=api.example.com"]);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /setting hosts must be valid JSON/);
});
