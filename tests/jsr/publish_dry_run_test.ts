/**
 * Netweir is publishable to JSR: `deno publish --dry-run` runs JSR's checks here, offline (the scoped name, the
 * exports, every file the package includes, and no slow types in its public API), and must find no problem. Before,
 * it refused the settings table's inferred type.
 */
import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/cli.ts";
import { runCommand } from "../helpers/command.ts";

Deno.test("deno publish --dry-run finds no problem in the package", async () => {
  const ran = await runCommand(Deno.execPath(), ["publish", "--dry-run", "--allow-dirty"], { cwd: REPO_ROOT });
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stderr + ran.stdout, /Dry run complete/);
  assert.doesNotMatch(ran.stderr, /error\[/);
});
