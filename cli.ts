/**
 * The `netweir` command: `netweir crawl`, `list`, `startproject`, `version` (see `netweir --help`). Run directly it
 * exits with the code main() returns; imported, it only provides main().
 */
// First, so that an older Node is refused in one line before any module that needs Node 22.12 is evaluated.
import "./src/runtime/refuse_old_node.ts";
import { runtime } from "./src/runtime/mod.ts";
import type { CliOutput } from "./src/cli/output.ts";

/** Runs a `netweir` command line (the arguments after `netweir`) and gives its exit code; never exits itself. */
export async function main(argv: string[], output?: CliOutput): Promise<number> {
  // Loaded on the first call, not with this module: `netweir crawl` on Node restarts itself before it (below), and
  // the process that only restarts should not load and compile every command's modules first (0.1 s of each crawl).
  const cli = await import("./src/cli/main.ts");
  return await cli.main(argv, output);
}

if (runtime.isMainModule(import.meta)) {
  // The program is Netweir: the crawl's heap settings (src/runtime/heap_flags.ts). A crawl is worth a restart of Node
  // to have them all; a `version` or a `list` is not.
  const args = runtime.args();
  runtime.cacheCompiledCode();
  runtime.tuneHeap(args[0] === "crawl");
  runtime.exit(await main(args));
}
