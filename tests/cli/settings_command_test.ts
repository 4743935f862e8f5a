/** `netweir settings` (issue 25, item 5): the effective settings, each with where its value came from. */
import assert from "node:assert/strict";
import { SETTINGS } from "../../src/settings/table.ts";
import { fixture, runCli } from "./_run.ts";

const SPIDER = fixture("devloop_spider.ts");

/** The lines of the listing as name -> [value, source]. */
function listing(text: string): Map<string, [string, string]> {
  const rows = new Map<string, [string, string]>();
  for (const line of text.split("\n").filter(Boolean)) {
    const match = /^(\S+) +(.*) {2}\(([^)]+)\)$/.exec(line);
    assert.ok(match, `not a settings line: ${line}`);
    rows.set(match[1], [match[2], match[3]]);
  }
  return rows;
}

Deno.test("settings lists every setting with its source: default, profile, spider or -s", async () => {
  const plain = await runCli(["settings"]);
  assert.equal(plain.code, 0, plain.stderr);
  const defaults = listing(plain.stdout);
  assert.equal(defaults.size, SETTINGS.length);
  assert.deepEqual(defaults.get("concurrency"), ["16", "default"]);

  const layered = await runCli([
    "settings",
    "--spider-file",
    SPIDER,
    "-s",
    "profile=polite",
    "-s",
    "max_items=5",
    "-s",
    "queue=redis://:hunter2@127.0.0.1:1/0",
  ]);
  assert.equal(layered.code, 0, layered.stderr);
  const rows = listing(layered.stdout);
  assert.deepEqual(rows.get("user_agent"), ["devloop-bot/1.0", "spider"]);
  // The spider's own min_delay (0) wins over the profile's (1): the profile is under the spider's settings.
  assert.deepEqual(rows.get("min_delay"), ["0", "spider"]);
  assert.deepEqual(rows.get("per_domain"), ["1", "profile polite"]);
  assert.deepEqual(rows.get("max_items"), ["5", "-s"]);
  assert.deepEqual(rows.get("queue"), ["redis://:***@127.0.0.1:1/0", "-s"]);
  assert.doesNotMatch(layered.stdout, /hunter2/);
});

Deno.test("settings --get prints one value, in either spelling; an unknown name is one line and exit 2", async () => {
  const own = await runCli(["settings", "--spider-file", SPIDER, "--get", "userAgent"]);
  assert.equal(own.stdout, "devloop-bot/1.0\n");
  const over = await runCli(["settings", "--spider-file", SPIDER, "--get", "user_agent", "-s", "user_agent=x/1"]);
  assert.equal(over.stdout, "x/1\n");
  const json = await runCli(["settings", "--get", "max_depth", "--json"]);
  assert.equal(json.stdout, "null\n");
  const unknown = await runCli(["settings", "--get", "usr_agent"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "netweir: unknown setting usr_agent (did you mean user_agent?)\n");
  const bad = await runCli(["settings", "-s", "concurrency=lots"]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'netweir: setting concurrency must be a whole number, not "lots"\n');
});
