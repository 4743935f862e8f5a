/**
 * The crawl's V8 heap settings (src/runtime/heap_flags.ts): given to the processes Netweir starts of itself on Deno,
 * written as `deno task crawl` passes them, and never over a setting the user made.
 */
import assert from "node:assert/strict";
import { CRAWL_V8_FLAGS, flagsNotGiven, v8FlagName } from "../../src/runtime/heap_flags.ts";
import { denoRuntime } from "../../src/runtime/deno.ts";

Deno.test("a V8 flag is known by its name, however it is spelled", () => {
  assert.equal(v8FlagName("--max-semi-space-size=16"), "max-semi-space-size");
  assert.equal(v8FlagName("--max_semi_space_size=4"), "max-semi-space-size");
  assert.equal(v8FlagName("--heap-growing-percent"), "heap-growing-percent");
});

Deno.test("a flag the user set is left to the user's value; the others are added", () => {
  assert.deepEqual(flagsNotGiven(CRAWL_V8_FLAGS.deno, []), [...CRAWL_V8_FLAGS.deno]);
  assert.deepEqual(flagsNotGiven(CRAWL_V8_FLAGS.deno, ["--max_semi_space_size=2", "--expose-gc"]), [
    "--heap-growing-percent=50",
  ]);
  assert.deepEqual(flagsNotGiven(CRAWL_V8_FLAGS.deno, ["--max-semi-space-size=2", "--heap-growing-percent=10"]), []);
});

Deno.test("on Deno, the command Netweir starts itself with carries the heap settings, after DENO_V8_FLAGS' own", () => {
  const previous = Deno.env.get("DENO_V8_FLAGS");
  try {
    Deno.env.delete("DENO_V8_FLAGS");
    const { args } = denoRuntime.selfCommand("/x/cli.ts");
    assert.deepEqual(args, ["run", "-A", "--quiet", `--v8-flags=${CRAWL_V8_FLAGS.deno.join(",")}`, "/x/cli.ts"]);
    Deno.env.set("DENO_V8_FLAGS", "--max-semi-space-size=4");
    assert.deepEqual(denoRuntime.selfCommand("/x/cli.ts").args, [
      "run",
      "-A",
      "--quiet",
      "--v8-flags=--heap-growing-percent=50",
      "/x/cli.ts",
    ]);
    Deno.env.set("DENO_V8_FLAGS", "--max-semi-space-size=4,--heap-growing-percent=20");
    assert.deepEqual(denoRuntime.selfCommand("/x/cli.ts").args, ["run", "-A", "--quiet", "/x/cli.ts"]);
  } finally {
    if (previous === undefined) Deno.env.delete("DENO_V8_FLAGS");
    else Deno.env.set("DENO_V8_FLAGS", previous);
  }
  assert.equal(denoRuntime.tuneHeap(), false, "Deno takes V8 flags only at start");
});

Deno.test("deno task crawl passes the same settings", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.match(config.tasks.crawl, new RegExp(`--v8-flags=${CRAWL_V8_FLAGS.deno.join(",")} `));
});
