/**
 * The `netweir` command: `netweir crawl`, `list`, `startproject`, `version` (see `netweir --help`). Run directly it
 * exits with the code main() returns; imported, it only provides main().
 */
import { main } from "./src/cli/main.ts";
import { runtime } from "./src/runtime/mod.ts";

export { main };

if (runtime.isMainModule(import.meta)) {
  // The program is Netweir: the crawl's heap settings (src/runtime/heap_flags.ts). A crawl is worth a restart of Node
  // to have them all; a `version` or a `list` is not.
  const args = runtime.args();
  runtime.tuneHeap(args[0] === "crawl");
  runtime.exit(await main(args));
}
