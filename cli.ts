/**
 * The `netweir` command: `netweir crawl`, `list`, `startproject`, `version` (see `netweir --help`). Run directly it
 * exits with the code main() returns; imported, it only provides main().
 */
import { main } from "./src/cli/main.ts";
import { runtime } from "./src/runtime/mod.ts";

export { main };

if (runtime.isMainModule(import.meta)) {
  // The program is Netweir: the crawl's heap settings (src/runtime/heap_flags.ts), where the runtime takes them now.
  runtime.tuneHeap();
  runtime.exit(await main(runtime.args()));
}
