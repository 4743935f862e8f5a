/** Exit codes and the one line on standard error for each kind of error. */
import assert from "node:assert/strict";
import { FetchError, QueueError, SettingsError, UsageError } from "../../src/errors.ts";
import { CommandError, exitCodeFor, reportError } from "../../src/cli/errors.ts";
import { runCli, withTempDir } from "./_run.ts";

function reported(error: unknown, debug: boolean): string {
  let text = "";
  reportError(error, (chunk) => text += chunk, { debug });
  return text;
}

Deno.test("bad arguments and bad values exit 2", () => {
  assert.equal(exitCodeFor(new UsageError("no such file: x.ts")), 2);
  assert.equal(exitCodeFor(new SettingsError("unknown setting max_itmes")), 2);
});

Deno.test("a TypeError or RangeError that no check of the user's input raised is a failure (1), not a bad argument", () => {
  assert.equal(exitCodeFor(new TypeError("Cannot read properties of undefined (reading 'url')")), 1);
  assert.equal(exitCodeFor(new RangeError("Maximum call stack size exceeded")), 1);
});

Deno.test("failures at run time exit 1", () => {
  assert.equal(exitCodeFor(new QueueError("cannot reach redis")), 1);
  assert.equal(exitCodeFor(new FetchError("network", "connection refused")), 1);
  assert.equal(exitCodeFor(new CommandError("shop already exists")), 1);
  assert.equal(exitCodeFor(new Error("something broke")), 1);
  assert.equal(exitCodeFor("a thrown string"), 1);
});

Deno.test("an error is reported on one line with its password masked", () => {
  const error = new QueueError("cannot reach redis://:hunter2@10.0.0.5:6379/0\n  after 3 attempts");
  assert.equal(reported(error, false), "netweir: cannot reach redis://:***@10.0.0.5:6379/0\n");
});

Deno.test("a user's mistake never shows a stack trace, even when debugging", () => {
  assert.equal(reported(new UsageError("no such file: x.ts"), true), "netweir: no such file: x.ts\n");
  assert.equal(reported(new SettingsError("unknown setting max_itmes"), true), "netweir: unknown setting max_itmes\n");
});

Deno.test("an unexpected error shows its stack only when debugging", () => {
  const error = new Error("undefined is not a function");
  assert.equal(reported(error, false), "netweir: undefined is not a function\n");
  const debug = reported(error, true).split("\n");
  assert.equal(debug[0], "netweir: undefined is not a function");
  assert.match(debug[1], /^Error: undefined is not a function$/);
  assert.match(debug[2], /^\s+at /);
});

Deno.test("a thrown value that is not an Error is still reported on one line", () => {
  assert.equal(reported("plain string", true), "netweir: plain string\n");
  assert.equal(reported(new Error(""), false), "netweir: Error\n");
});

Deno.test("through the CLI, an unexpected error is one line, and NETWEIR_DEBUG=1 adds its stack", async () => {
  await withTempDir(async (dir) => {
    // A valid project name too long for the file system: mkdir fails with ENAMETOOLONG, an error Netweir did not
    // throw on purpose.
    const name = "a".repeat(300);
    const plain = await runCli(["startproject", name], { cwd: dir });
    assert.equal(plain.code, 1);
    assert.equal(plain.stderr.split("\n").filter(Boolean).length, 1, plain.stderr);
    assert.match(plain.stderr, /^netweir: ENAMETOOLONG/);
    const debug = await runCli(["startproject", name], { cwd: dir, env: { NETWEIR_DEBUG: "1" } });
    assert.equal(debug.code, 1);
    const lines = debug.stderr.split("\n").filter(Boolean);
    assert.equal(lines[0], plain.stderr.trimEnd());
    assert.ok(lines.slice(1).some((line) => /^\s+at /.test(line)), debug.stderr);
  });
});
