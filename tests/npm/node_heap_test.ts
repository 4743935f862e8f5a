/**
 * Under Node, `netweir crawl` runs with the crawl's V8 heap settings (src/runtime/heap_flags.ts): Node takes the young
 * generation's size only at start, so the command starts itself again in place (process.execve), in the same process
 * as the one its user started; a flag the user gave wins; other commands are not restarted.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage, NODE22, runCommand } from "../helpers/node_package.ts";
import { CRAWL_V8_FLAGS } from "../../src/runtime/heap_flags.ts";

/** A spider whose one item says how its process was started. */
const SPIDER = `import { Request, Spider } from "netweir";
export class Reporter extends Spider {
  site = "http://127.0.0.1:1/";
  async *start() {
    yield new Request({ url: this.site });
  }
  parse() {
    return { execArgv: process.execArgv, ppid: process.ppid };
  }
}
`;

Deno.test("under Node, netweir crawl runs in the process its user started, with the crawl's V8 flags, the user's first", async () => {
  const site = await startFixtureSite({ books: 1 });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "reporter.mjs"), SPIDER);
    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    const crawl = async (nodeArgs: string[], env?: Record<string, string>) => {
      const out = join(pkg.dir, "items.jsonl");
      const ran = await runCommand(
        NODE22,
        [...nodeArgs, bin, "crawl", "reporter.mjs", "-a", `site=${site.url}`, "-O", out],
        { cwd: pkg.dir, env },
      );
      assert.equal(ran.code, 0, ran.stderr);
      return JSON.parse((await readFile(out, "utf8")).trim()) as { execArgv: string[]; ppid: number };
    };
    const plain = await crawl([]);
    // And AsyncLocalStorage on async context frames rather than promise hooks, and no more V8 helper threads than
    // CPUs where there are fewer than Node's 4 (src/runtime/node.ts, crawlNodeFlags).
    const cpus = availableParallelism();
    const pool = cpus < 4 ? [`--v8-pool-size=${cpus}`] : [];
    assert.deepEqual(plain.execArgv, ["--experimental-async-context-frame", ...pool, ...CRAWL_V8_FLAGS.node]);
    assert.equal(plain.ppid, Deno.pid, "no second process: Node was restarted in place");
    const ownPool = await crawl(["--v8-pool-size=3"]);
    assert.deepEqual(
      ownPool.execArgv,
      ["--v8-pool-size=3", "--experimental-async-context-frame", ...CRAWL_V8_FLAGS.node],
      "the user's own pool size, and none of Netweir's",
    );
    const own = await crawl(["--max-semi-space-size=4"]);
    assert.deepEqual(own.execArgv, ["--max-semi-space-size=4"], "the user's own young generation: no restart");
    const viaEnv = await crawl([], { ...Deno.env.toObject(), NODE_OPTIONS: "--max-semi-space-size=2" });
    assert.deepEqual(viaEnv.execArgv, [], "NODE_OPTIONS' young generation wins, and the growth is set in-process");
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("under Node, a command that is not a crawl is not restarted", async () => {
  const pkg = await installBuiltPackage();
  try {
    const probe = join(pkg.dir, "probe.mjs");
    // The CLI run as a program, reporting the flags it ended with from an exit hook.
    await writeFile(
      probe,
      `process.on("exit", () => process.stderr.write("execArgv=" + JSON.stringify(process.execArgv) + "\\n"));\n`,
    );
    const ran = await runCommand(NODE22, [
      "--import",
      probe,
      join(pkg.dir, "node_modules", "netweir", "cli.js"),
      "version",
    ], {
      cwd: pkg.dir,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^netweir \d/);
    assert.match(ran.stderr, /execArgv=\["--import","[^"]+probe\.mjs"\]/);
  } finally {
    await pkg.remove();
  }
});
