/**
 * `deno task test`'s setup says what a long install is doing: a line before it (what, where) and one after (its size
 * and time). Before, 360 MB went into .cache/ on a first run with nothing said. The install here is a real write of
 * 2 MB into a directory under .cache/, not npm (the tests talk to nothing beyond 127.0.0.1).
 */
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CACHE, installStep } from "../../scripts/test_setup.ts";

Deno.test("the test setup says what it installs and where before, and how much and how long after", async () => {
  const dir = join(CACHE, `setup-step-test-${crypto.randomUUID()}`);
  const lines: string[] = [];
  try {
    await installStep("two files (a test)", dir, async () => {
      await mkdir(join(dir, "sub"), { recursive: true });
      await writeFile(join(dir, "a.bin"), new Uint8Array(1_500_000));
      await writeFile(join(dir, "sub", "b.bin"), new Uint8Array(500_000));
    }, (line) => lines.push(line));
    assert.equal(lines.length, 2);
    assert.match(
      lines[0],
      /^setup: installing two files \(a test\) into \.cache\/setup-step-test-[\w-]+\/ \(first run only/,
    );
    assert.match(lines[1], /^setup: two files \(a test\): 2 MB in \d+ s$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
