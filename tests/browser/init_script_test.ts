/**
 * `browser_init_script` read and checked at the start of the crawl: a file or the source, a missing file and a syntax
 * error refused with one line naming the setting; the command line exits 2 (file: about 5 s, one `netweir crawl`).
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SettingsError } from "../../src/errors.ts";
import { loadInitScript, namesInitScriptFile } from "../../src/browser/init_script.ts";
import { runCli, withTempDir } from "../cli/_run.ts";

Deno.test("a one-line value ending in .js names a file; anything else is the script", () => {
  assert.equal(namesInitScriptFile("stealth.js"), true);
  assert.equal(namesInitScriptFile(" ./scripts/init.mjs "), true);
  assert.equal(namesInitScriptFile("window.x = 1"), false);
  assert.equal(namesInitScriptFile("window.x = 1;\n// init.js"), false);
  assert.equal(loadInitScript(null), undefined);
  assert.equal(loadInitScript("window.x = 1"), "window.x = 1");
});

Deno.test("a missing file or a script that does not compile is a SettingsError naming browser_init_script", async () => {
  const refused = (words: RegExp) => (error: unknown) => {
    assert.ok(error instanceof SettingsError);
    assert.equal(error.setting, "browser_init_script");
    assert.match(error.message, words);
    return true;
  };
  assert.throws(() => loadInitScript("./no-such-init.js"), refused(/no-such-init\.js cannot be read: no such file/));
  assert.throws(() => loadInitScript("window.x = ;"), refused(/does not compile: .*Unexpected token/));
  await withTempDir(async (dir) => {
    const file = join(dir, "broken.js");
    await writeFile(file, "function (");
    assert.throws(() => loadInitScript(file), refused(/broken\.js\) does not compile/));
  });
});

Deno.test("netweir crawl with a browser_init_script file that is not there exits 2 with one line", async () => {
  await withTempDir(async (dir) => {
    const spider = join(dir, "quiet.ts");
    const mod = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);
    await writeFile(
      spider,
      `import { Spider } from ${mod};\nexport class Quiet extends Spider { override parse() {} }\n`,
    );
    const result = await runCli(["crawl", spider, "-s", "browser_init_script=./missing-init.js"], { cwd: dir });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr.trim(),
      "netweir: browser_init_script ./missing-init.js cannot be read: no such file",
    );
  });
});
